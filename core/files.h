// The files of one directory, for tests and fuzzers that read a corpus or a
// set of programs from their runfiles: names in order, dot-files left out.
#ifndef SAFEPOINT_CORE_FILES_H_
#define SAFEPOINT_CORE_FILES_H_

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace safepoint {

// The names in a directory, sorted; empty when it cannot be read.
inline std::vector<std::string> NamesIn(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Each file's name and contents, sorted by name; empty when the directory
// cannot be read.
inline std::vector<std::pair<std::string, std::string>> ReadFilesIn(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& n : NamesIn(dir)) {
    std::ifstream in(dir + "/" + n, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.emplace_back(n, ss.str());
  }
  return out;
}

}  // namespace safepoint

#endif
