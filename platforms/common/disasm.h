// Disassembles emitted code with the target's objdump, on the host, so the
// emitter tests can compare what a Lowerer produced with hand-written
// expected instructions. Used by host-only tests.
#ifndef SAFEPOINT_PLATFORMS_COMMON_DISASM_H_
#define SAFEPOINT_PLATFORMS_COMMON_DISASM_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace safepoint {

struct DisasmLine {
  uint32_t offset;
  std::string text;  // mnemonic and operands, whitespace collapsed, comments dropped
};

// port: "amd64", "arm64" or "loong64". Returns false with *err on failure.
inline bool Disassemble(const std::string& port, const std::vector<uint8_t>& code, std::vector<DisasmLine>* out,
                        std::string* err) {
  const char* tools = getenv("SAFEPOINT_TOOLS");
  std::string t = tools && *tools ? tools : "/opt/safepoint-tools";
  std::string tool, machine;
  if (port == "amd64") {
    tool = "objdump", machine = "i386:x86-64";
  } else if (port == "arm64") {
    tool = "aarch64-linux-gnu-objdump", machine = "aarch64";
  } else if (port == "loong64") {
    tool = t + "/bin/loongarch64-linux-gnu-objdump", machine = "loongarch64";
  } else {
    *err = "no disassembler for port " + port;
    return false;
  }
  char path[] = "/tmp/safepoint-disasm-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    *err = "mkstemp failed";
    return false;
  }
  if (write(fd, code.data(), code.size()) != static_cast<ssize_t>(code.size())) {
    close(fd);
    *err = "write failed";
    return false;
  }
  close(fd);
  std::string cmd = tool + " -D -b binary -m " + machine + (port == "amd64" ? " -M intel" : "") + " " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    *err = "cannot run " + cmd;
    unlink(path);
    return false;
  }
  std::string all;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) all.append(buf, n);
  int rc = pclose(p);
  unlink(path);
  if (rc != 0) {
    *err = cmd + " failed: " + all;
    return false;
  }
  // Lines look like "   4:\t48 83 c0 01          \tadd    rax,0x1  # comment".
  std::istringstream in(all);
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(":\t");
    if (colon == std::string::npos) continue;
    char* end = nullptr;
    unsigned long off = strtoul(line.c_str(), &end, 16);
    if (end == line.c_str() || static_cast<size_t>(end - line.c_str()) != colon) continue;
    size_t tab = line.find('\t', colon + 2);
    if (tab == std::string::npos) continue;  // a continuation line of bytes
    std::string text = line.substr(tab + 1);
    // objdump's comments: '#' on x86 and LoongArch; on arm64 '#' starts
    // every immediate and comments are "//".
    for (const char* c : {port == "arm64" ? "//" : "#", "//", "<"}) {
      size_t h = text.find(c);
      if (h != std::string::npos) text = text.substr(0, h);
    }
    std::string collapsed;
    bool space = false;
    for (char ch : text) {
      if (ch == ' ' || ch == '\t') {
        space = true;
      } else {
        if (space && !collapsed.empty()) collapsed += ' ';
        collapsed += ch;
        space = false;
      }
    }
    out->push_back({static_cast<uint32_t>(off), collapsed});
  }
  return true;
}

}  // namespace safepoint

#endif
