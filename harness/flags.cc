#include "harness/flags.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>

namespace safepoint::harness {
namespace {

// "0x4a10,0x4a14": PCs, each hexadecimal (0x optional), non-zero.
bool ParsePcs(const std::string& s, std::vector<uint64_t>* out) {
  out->clear();
  if (s.empty()) return true;
  size_t from = 0;
  while (from <= s.size()) {
    size_t comma = s.find(',', from);
    if (comma == std::string::npos) comma = s.size();
    std::string w = s.substr(from, comma - from);
    if (w.rfind("0x", 0) == 0 || w.rfind("0X", 0) == 0) w = w.substr(2);
    if (w.empty() || w.size() > 16 || w.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return false;
    uint64_t v = std::stoull(w, nullptr, 16);
    if (v == 0) return false;
    out->push_back(v);
    from = comma + 1;
  }
  return true;
}

// A number in [lo, hi], all of `s` (strtod's spelling).
bool ParseNumber(const std::string& s, double lo, double hi, double* out) {
  char* end = nullptr;
  double v = strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

bool ParseXStateScan(const std::string& v, XStateScan* out) {
  if (v == "go1.27") return *out = XStateScan::kGo127, true;
  if (v == "go1.26") return *out = XStateScan::kGo126, true;
  return false;
}

// The parse in progress: each flag's value (its default unless given) and
// the word that gave it.
struct Parse {
  CommandLine* line;
  FlagError* err;
  std::map<std::string, std::string> value;
  std::map<std::string, int> word;

  bool Refuse(const std::string& message, int at, bool after_input = false) {
    err->message = message;
    err->word = at;
    err->after_input = after_input;
    return false;
  }
  // Refuses flag `name`'s value: "--name=VALUE: want".
  bool RefuseValue(const std::string& name, const std::string& want, bool after_input = false) {
    return Refuse("--" + name + "=" + value.at(name) + ": " + want, word.count(name) ? word.at(name) : -1,
                  after_input);
  }
  const std::string& operator[](const std::string& name) const { return value.at(name); }
  bool On(const std::string& name) const { return value.at(name) == "1"; }
};

bool CheckArch(Parse& p, const FlagContext& ctx) {
  const std::string& arch = p["arch"];
  if (arch.empty()) return true;
  int at = p.word.at("arch");
  // A config of a port (amd64_qemu, say) is the port the runner says it is.
  std::string port = !ctx.config.empty() && arch == ctx.config ? ctx.config_port : arch;
  if (!FindPort(port)) return p.Refuse("unknown architecture '" + arch + "'; valid: " + PortNames() + " (and their configs)", at);
  std::string native = ctx.native ? std::string(ctx.native->name) : "";
  if (port != native)
    return p.Refuse("this safepoint binary is built for " + native + ", not " + arch + "; run ./safepoint --arch=" + arch +
                        " (it builds with --config=" + arch + ")",
                    at);
  return true;
}

// --mutate for sweep and repro: a known mutation that applies to the port
// (sweep also takes "list").
bool CheckMutate(Parse& p, const FlagContext& ctx, const char* lister) {
  CommandLine& l = *p.line;
  l.mutate = p["mutate"];
  if (l.mutate.empty() || (l.mutate == "list" && l.cmd == "sweep")) return true;
  l.mutation = FindMutation(l.mutate);
  if (!l.mutation) return p.Refuse("--mutate=" + l.mutate + ": unknown (" + lister + " lists them)", p.word.at("mutate"), true);
  std::string why = ctx.native ? MutationInapplicable(*l.mutation, *ctx.native) : "no port";
  if (!why.empty()) {
    l.mutation = nullptr;
    return p.Refuse("--mutate=" + l.mutate + " does not apply: " + why, p.word.at("mutate"), true);
  }
  return true;
}

// Each subcommand's values, in the order the command checks them.
bool CheckSubcommand(Parse& p, const FlagContext& ctx, const SubcommandDef& sub, int cmd_word) {
  CommandLine& l = *p.line;
  if (static_cast<int>(l.args.size()) != sub.args) return p.Refuse(sub.wrong_args, cmd_word);
  double v = 0;
  if (l.cmd == "experiment") {
    if (!ParseNumber(p["deadline"], 0.01, 600, &l.deadline_s)) return p.RefuseValue("deadline", "want seconds in [0.01, 600]");
    l.omit_stack_check = p.On("omit-stack-check");
  } else if (l.cmd == "run") {
    if (!ParseNumber(p["gomaxprocs"], 1, 64, &v) || v != static_cast<int>(v))
      return p.RefuseValue("gomaxprocs", "want an integer in [1, 64]");
    l.gomaxprocs = static_cast<int>(v);
    l.godebug = p["godebug"];
    Debug d;
    std::string why;
    if (!ParseGodebug(l.godebug, &d, &why)) return p.Refuse(why, p.word.at("godebug"));
    if (!ParseXStateScan(p["xstate-scan"], &l.xstate_scan)) return p.RefuseValue("xstate-scan", "want go1.26 or go1.27");
    l.events = p.On("events");
    l.json = p.On("json");
  } else if (l.cmd == "sweep") {
    // The command reads --program first: what follows is reported after it.
    l.program = p["program"];
    l.runtimesecret = p.On("runtimesecret");
    if (!ParseXStateScan(p["xstate-scan"], &l.xstate_scan))
      return p.RefuseValue("xstate-scan", "want go1.26 or go1.27", true);
    l.collect = p.On("collect");
    l.no_frame_table = p.On("no-frame-table");
    if (!ParseNumber(p["max-failures"], 0, 1e9, &v) || v != static_cast<size_t>(v))
      return p.RefuseValue("max-failures", "want a count", true);
    l.max_failures = static_cast<size_t>(v);
    return CheckMutate(p, ctx, "--mutate=list");
  } else if (l.cmd == "gen") {
    l.coverage = p.On("coverage");
    if (!ParseNumber(p["seed"], 0, 9007199254740992.0, &l.seed) || l.seed != static_cast<double>(static_cast<uint64_t>(l.seed)))
      return p.RefuseValue("seed", "want an integer in [0, 2^53]");
    if (!ParseNumber(p["seeds"], 1, 100000, &v) || v != static_cast<int>(v))
      return p.RefuseValue("seeds", "want a count in [1, 100000]");
    l.seeds = static_cast<int>(v);
  } else if (l.cmd == "go-sweep") {
    l.go = p["go"];
    if (l.go != "1.19" && l.go != "1.24" && l.go != "1.26") return p.RefuseValue("go", "want 1.19, 1.24 or 1.26");
    l.request = p["request"];
    if (l.request != "sched" && l.request != "gc") return p.RefuseValue("request", "want sched or gc");
    l.stress = p["stress"];
    if (l.stress != "none" && l.stress != "collection" && l.stress != "traceback")
      return p.RefuseValue("stress", "want none, collection or traceback");
    l.func = p["func"];
    try {
      std::regex re(l.func, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      return p.RefuseValue("func", "want a regular expression");
    }
    if (!ParsePcs(p["pc"], &l.pcs)) return p.RefuseValue("pc", "want hexadecimal PCs separated by commas");
    l.findings = p["findings"];
    l.json = p.On("json");
    l.no_frame_table = p.On("no-frame-table");
  } else if (l.cmd == "repro") {
    if (!ParseNumber(p["times"], 1, 100000, &v) || v != static_cast<int>(v))
      return p.RefuseValue("times", "want a count in [1, 100000]");
    l.times = static_cast<int>(v);
    l.no_triage = p.On("no-triage");
    l.show = p.On("show");
    // The command reads and decodes the case first.
    return CheckMutate(p, ctx, "safepoint sweep --mutate=list");
  }
  return true;
}

}  // namespace

const FlagDef* FindFlag(const std::string& name) {
  for (const FlagDef& d : kFlags)
    if (name == d.name) return &d;
  return nullptr;
}

const SubcommandDef* FindSubcommand(const std::string& name) {
  for (const SubcommandDef& c : kSubcommands)
    if (name == c.name) return &c;
  return nullptr;
}

bool FlagApplies(const FlagDef& d, const std::string& cmd) {
  std::string h = d.help;
  size_t colon = h.find(':');
  if (std::string(d.name) == "arch" || colon == std::string::npos) return true;
  // "run, sweep": each name between commas, whole ("sweep" is not "go-sweep").
  std::string subs = h.substr(0, colon);
  size_t from = 0;
  while (from <= subs.size()) {
    size_t comma = subs.find(',', from);
    if (comma == std::string::npos) comma = subs.size();
    size_t b = subs.find_first_not_of(' ', from);
    if (b != std::string::npos && b < comma && subs.compare(b, comma - b, cmd) == 0) return true;
    from = comma + 1;
  }
  return false;
}

bool ParseCommandLine(const std::vector<std::string>& words, const FlagContext& ctx, CommandLine* line,
                      FlagError* err) {
  *line = CommandLine{};
  *err = FlagError{};
  Parse p{line, err, {}, {}};
  // The subcommand is the first word that is not a flag, so
  // `safepoint --arch=X sweep` and `safepoint sweep --arch=X` both work.
  int cmd_word = -1;
  bool help = false;
  for (size_t i = 0; i < words.size(); i++) {
    if (cmd_word < 0 && words[i].rfind("-", 0) != 0) cmd_word = static_cast<int>(i);
    help = help || words[i] == "--help" || words[i] == "-h";
  }
  if (cmd_word < 0) {
    if (help) return true;  // kUsage
    err->usage = true;
    return p.Refuse("no subcommand (see safepoint help)", -1);
  }
  line->cmd = words[cmd_word];
  if (line->cmd == "help") return true;  // kUsage
  const SubcommandDef* sub = FindSubcommand(line->cmd);
  if (!sub) return p.Refuse("unknown subcommand '" + line->cmd + "' (experiment, sweep, run, repro, gen, go-sweep, rules, help)", cmd_word);
  if (help) {
    line->action = Action::kSubcommandUsage;
    return true;
  }
  line->action = Action::kRun;

  for (const FlagDef& d : kFlags) p.value[d.name] = d.def;
  for (size_t i = 0; i < words.size(); i++) {
    const std::string& a = words[i];
    if (static_cast<int>(i) == cmd_word) continue;
    if (a.rfind("--", 0) != 0) {
      line->args.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    size_t eq = name.find('=');
    std::string key = eq == std::string::npos ? name : name.substr(0, eq);
    const FlagDef* def = FindFlag(key);
    int at = static_cast<int>(i);
    if (!def) return p.Refuse("unknown flag --" + key + " (see safepoint help)", at);
    if (!FlagApplies(*def, line->cmd))
      return p.Refuse("--" + key + " does not apply to " + line->cmd + " (see safepoint " + line->cmd + " --help)", at);
    if (def->boolean && eq != std::string::npos) return p.Refuse("--" + key + " takes no value", at);
    if (!def->boolean && eq == std::string::npos) return p.Refuse("--" + key + " needs a value (--" + key + "=...)", at);
    p.value[key] = def->boolean ? "1" : name.substr(eq + 1);
    p.word[key] = at;
  }
  if (!CheckArch(p, ctx)) return false;
  line->arch = p["arch"];
  if (!ParseNumber(p["timeout"], 0, 1e6, &line->timeout_s)) return p.RefuseValue("timeout", "want seconds, 0 for none");
  return CheckSubcommand(p, ctx, *sub, cmd_word);
}

std::vector<std::string> RenderCommandLine(const CommandLine& line) {
  if (line.action == Action::kUsage) return {line.cmd.empty() ? "--help" : "help"};
  if (line.action == Action::kSubcommandUsage) return {line.cmd, "--help"};
  std::vector<std::string> w = {line.cmd};
  const CommandLine def;
  auto str = [&](const char* name, const std::string& v, const std::string& d) {
    if (v != d) w.push_back(std::string("--") + name + "=" + v);
  };
  auto num = [&](const char* name, double v, double d) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    if (v != d) w.push_back(std::string("--") + name + "=" + buf);
  };
  auto flag = [&](const char* name, bool v) {
    if (v) w.push_back(std::string("--") + name);
  };
  auto scan = [](XStateScan x) { return std::string(x == XStateScan::kGo126 ? "go1.26" : "go1.27"); };
  str("arch", line.arch, def.arch);
  num("deadline", line.deadline_s, def.deadline_s);
  flag("omit-stack-check", line.omit_stack_check);
  num("gomaxprocs", line.gomaxprocs, def.gomaxprocs);
  str("godebug", line.godebug, def.godebug);
  flag("events", line.events);
  flag("json", line.json);
  str("program", line.program, def.program);
  flag("runtimesecret", line.runtimesecret);
  str("mutate", line.mutate, def.mutate);
  num("times", line.times, def.times);
  flag("no-triage", line.no_triage);
  flag("show", line.show);
  num("max-failures", static_cast<double>(line.max_failures), static_cast<double>(def.max_failures));
  flag("collect", line.collect);
  flag("no-frame-table", line.no_frame_table);
  flag("coverage", line.coverage);
  num("seed", line.seed, def.seed);
  num("seeds", line.seeds, def.seeds);
  str("xstate-scan", scan(line.xstate_scan), scan(def.xstate_scan));
  num("timeout", line.timeout_s, def.timeout_s);
  str("go", line.go, def.go);
  str("request", line.request, def.request);
  str("stress", line.stress, def.stress);
  str("func", line.func, def.func);
  {
    std::string pcs;
    char b[24];
    for (uint64_t pc : line.pcs) {
      snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(pc));
      pcs += (pcs.empty() ? "" : ",") + std::string(b);
    }
    str("pc", pcs, "");
  }
  str("findings", line.findings, def.findings);
  for (const std::string& a : line.args) w.push_back(a);
  return w;
}

}  // namespace safepoint::harness
