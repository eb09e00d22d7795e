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

#include "platforms/port.h"

namespace safepoint {

struct DisasmLine {
  uint32_t offset;
  std::string text;  // mnemonic and operands, whitespace collapsed, comments dropped
};

// Disassembles with the objdump that port `port`'s facts name (port.env).
// Returns false with *err on failure.
inline bool Disassemble(const std::string& port, const std::vector<uint8_t>& code, std::vector<DisasmLine>* out,
                        std::string* err) {
  const PortInfo* info = FindPort(port);
  if (info == nullptr || info->objdump.tool.empty()) {
    *err = "no disassembler for port " + port;
    return false;
  }
  const char* tools = getenv("SAFEPOINT_TOOLS");
  std::string t = tools && *tools ? tools : "/opt/safepoint-tools";
  std::string tool(info->objdump.tool);
  if (tool.compare(0, 6, "$TOOLS") == 0) tool = t + tool.substr(6);
  std::string machine(info->objdump.machine), flags(info->objdump.flags), comment(info->objdump.comment);
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
  std::string cmd = tool + " -D -b binary -m " + machine + (flags.empty() ? "" : " " + flags) + " " + path + " 2>&1";
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
    // objdump's comments start with the port's comment string ('#', or
    // "//" where '#' starts every immediate).
    for (const std::string& c : {comment, std::string("//"), std::string("<")}) {
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
