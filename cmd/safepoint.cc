// safepoint: the harness's command line.
//
//   safepoint experiment [--arch=A] [--deadline=SECONDS] [--omit-stack-check]
//       the chapter's experiment of 9.7.1, six lines in its wording
//   safepoint sweep [--arch=A] [--program=FILE] [--runtimesecret] [--mutate=M]
//       preempts at every instruction of every function, one at a time;
//       prints counts per outcome; fails on any disagreement with the
//       decision oracle or any change of the program's end state
//   safepoint run [--arch=A] [--gomaxprocs=N] [--godebug=S] FILE
//       runs a program description's main.main and prints its globals
//   safepoint help
//
// A binary runs the port it was built for; --arch names that port (the
// ./safepoint wrapper at the top of the checkout picks the build config and
// the emulator from it). Exit status: 0 on success, 1 when a run failed,
// 2 for bad input (an unknown subcommand, flag, architecture, a malformed
// program or GODEBUG).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness/experiment.h"
#include "oracle/sweep.h"
#include "platforms/native.h"
#include "runtime/runtime.h"

namespace safepoint {
namespace {

struct FlagDef {
  const char* name;
  const char* def;
  const char* help;
  bool boolean;
};
// Every flag, once: name, default, help.
constexpr FlagDef kFlags[] = {
    {"arch", "", "the config this binary must run as (a port, or a config of one: see platforms/PORTS)", false},
    {"deadline", "1", "experiment: seconds a child may run before it counts as not preempted", false},
    {"omit-stack-check", "", "experiment: the mutation with no stack-check prologues", true},
    {"gomaxprocs", "1", "run: the number of Ps", false},
    {"godebug", "", "run: the GODEBUG value", false},
    {"program", "", "sweep: a program description file (default: the built-in program)", false},
    {"runtimesecret", "", "sweep: run under GOEXPERIMENT=runtimesecret", true},
    {"mutate", "", "sweep: a mutation to show the sweep fails (skip-unsafe-point, skip-nosplit, no-restart, drop-register)",
     false},
};

struct SubcommandDef {
  const char* name;
  const char* usage;
  const char* help;
};
// Every subcommand, once: name, usage line, what it does.
constexpr SubcommandDef kSubcommands[] = {
    {"experiment", "safepoint experiment [--deadline=S] [--omit-stack-check]",
     "the chapter's 9.7.1 experiment on this port: three loops that never yield, each in a child process\n"
     "with GOMAXPROCS=1, with asyncpreemptoff=1 and without; prints the chapter's six lines"},
    {"sweep", "safepoint sweep [--program=FILE] [--runtimesecret] [--mutate=M]",
     "preempts at every instruction of every function, one at a time, by armed delivery; fails on any\n"
     "disagreement with the decision oracle or any change of the program's end state"},
    {"run", "safepoint run [--gomaxprocs=N] [--godebug=S] FILE", "runs a program description's main.main and prints its globals"},
    {"help", "safepoint help | safepoint SUBCOMMAND --help", "prints this help"},
};

int SubcommandUsage(const SubcommandDef& c) {
  printf("usage: %s [--arch=A]\n\n%s\n\nflags:\n", c.usage, c.help);
  std::string prefix = std::string(c.name) + ":";
  for (const FlagDef& d : kFlags)
    if (std::string(d.help).rfind(prefix, 0) == 0 || std::string(d.name) == "arch")
      printf("  --%-18s %s (default \"%s\")\n", d.name, d.help, d.def);
  return 0;
}

int Usage(FILE* f) {
  fprintf(f,
          "usage: safepoint experiment|sweep|run|help [flags] [FILE]\n"
          "  experiment   the chapter's 9.7.1 experiment on this port\n"
          "  sweep        preempt at every instruction; check the oracle and the end state\n"
          "  run FILE     run a program description's main.main\n"
          "flags:\n");
  for (const FlagDef& d : kFlags) fprintf(f, "  --%-18s %s (default \"%s\")\n", d.name, d.help, d.def);
  return f == stderr ? 2 : 0;
}

int Bad(const std::string& msg) {
  fprintf(stderr, "safepoint: %s\n", msg.c_str());
  return 2;
}

bool ParseFlags(int argc, char** argv, int start, std::map<std::string, std::string>* flags,
                std::vector<std::string>* args, std::string* err) {
  for (const FlagDef& d : kFlags) (*flags)[d.name] = d.def;
  for (int i = start; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      args->push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    size_t eq = name.find('=');
    const FlagDef* def = nullptr;
    std::string key = eq == std::string::npos ? name : name.substr(0, eq);
    for (const FlagDef& d : kFlags)
      if (key == d.name) def = &d;
    if (!def) {
      *err = "unknown flag --" + key + " (see safepoint help)";
      return false;
    }
    if (def->boolean) {
      if (eq != std::string::npos) {
        *err = "--" + key + " takes no value";
        return false;
      }
      value = "1";
    } else {
      if (eq == std::string::npos) {
        *err = "--" + key + " needs a value (--" + key + "=...)";
        return false;
      }
      value = name.substr(eq + 1);
    }
    (*flags)[key] = value;
  }
  return true;
}

bool CheckArch(const std::string& arch, std::string* err) {
  if (arch.empty()) return true;
  // A config of a port (amd64_qemu, say) is the port the runner says it is.
  const char* config = getenv("SAFEPOINT_CONFIG");
  const char* config_port = getenv("SAFEPOINT_ARCH");
  std::string port = config && config_port && arch == config ? config_port : arch;
  if (!FindPort(port)) {
    *err = "unknown architecture '" + arch + "'; valid: " + PortNames() + " (and their configs)";
    return false;
  }
  if (port != NativePort().name) {
    *err = "this safepoint binary is built for " + std::string(NativePort().name) + ", not " + arch +
           "; run ./safepoint --arch=" + arch + " (it builds with --config=" + arch + ")";
    return false;
  }
  return true;
}

bool ParseNumber(const std::string& s, double lo, double hi, double* out) {
  char* end = nullptr;
  double v = strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

int Experiment(const std::map<std::string, std::string>& flags, const std::vector<std::string>& args) {
  if (!args.empty()) return Bad("experiment takes no arguments");
  ExperimentOptions opts;
  if (!ParseNumber(flags.at("deadline"), 0.01, 600, &opts.deadline_s))
    return Bad("--deadline=" + flags.at("deadline") + ": want seconds in [0.01, 600]");
  opts.omit_stack_check = flags.at("omit-stack-check") == "1";
  std::vector<ExperimentRow> rows;
  std::string err;
  if (!RunExperiment(opts, &rows, &err)) {
    fprintf(stderr, "safepoint: %s\n", err.c_str());
    return 1;
  }
  for (const ExperimentRow& r : rows) printf("%s\n", FormatRow(r).c_str());
  return 0;
}

int Run(const std::map<std::string, std::string>& flags, const std::vector<std::string>& args) {
  if (args.size() != 1) return Bad("run needs exactly one program file");
  std::ifstream in(args[0]);
  if (!in) return Bad("cannot read " + args[0]);
  std::stringstream text;
  text << in.rdbuf();
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(text.str(), &prog, &err)) return Bad(args[0] + ":" + err);
  double procs;
  if (!ParseNumber(flags.at("gomaxprocs"), 1, 64, &procs) || procs != static_cast<int>(procs))
    return Bad("--gomaxprocs=" + flags.at("gomaxprocs") + ": want an integer in [1, 64]");
  RuntimeOptions opts;
  opts.settings.gomaxprocs = static_cast<int>(procs);
  opts.settings.godebug = flags.at("godebug");
  Debug d;
  if (!ParseGodebug(opts.settings.godebug, &d, &err)) return Bad(err);
  Runtime rt(std::move(opts));
  if (!rt.Load(prog, &err)) return Bad(args[0] + ": " + err);
  if (!rt.Run("main.main", &err)) {
    fprintf(stderr, "safepoint: %s\n", err.c_str());
    return 1;
  }
  for (int i = 0; i < ir::kGlobals; i++)
    if (rt.global(i) != 0) printf("g[%d] = %llu\n", i, static_cast<unsigned long long>(rt.global(i)));
  printf("events: %zu preempt-sync, %zu requests, %zu deferred, %zu stack growths\n",
         rt.events().Count(Ev::kPreemptSync), rt.events().Count(Ev::kRequest), rt.events().Count(Ev::kDeferred),
         rt.events().Count(Ev::kGrow));
  return 0;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  *out = text.str();
  return true;
}

int SweepCmd(const std::map<std::string, std::string>& flags, const std::vector<std::string>& args) {
  if (!args.empty()) return Bad("sweep takes no arguments (use --program=FILE)");
  oracle::SweepOptions opts;
  if (!flags.at("program").empty() && !ReadFile(flags.at("program"), &opts.program))
    return Bad("cannot read " + flags.at("program"));
  opts.runtime.experiments.runtimesecret = flags.at("runtimesecret") == "1";
  const std::string& m = flags.at("mutate");
  if (m == "skip-unsafe-point") {
    opts.runtime.mutations.skip_rule = Reason::kUnsafePoint;
  } else if (m == "skip-nosplit") {
    opts.runtime.mutations.skip_rule = Reason::kNosplit;
  } else if (m == "no-restart") {
    opts.runtime.mutations.no_restart = true;
  } else if (m == "drop-register") {
    opts.runtime.mutations.drop_register = true;
  } else if (!m.empty()) {
    return Bad("--mutate=" + m + ": want skip-unsafe-point, skip-nosplit, no-restart or drop-register");
  }
  oracle::SweepResult r;
  std::string err;
  if (!oracle::Sweep(opts, &r, &err)) return Bad("sweep: " + err);
  printf("sweep (%s): %s\n", std::string(NativePort().name).c_str(), r.Summary().c_str());
  for (const std::string& f : r.failures) printf("  FAIL %s\n", f.c_str());
  return r.ok() ? 0 : 1;
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc < 2) return Usage(stderr);
  std::string cmd = argv[1];
  if (cmd == "child") {  // internal: one experiment child
    if (argc < 3) return Bad("child needs a loop name");
    bool omit = argc > 3 && std::string(argv[3]) == "--omit-stack-check";
    return ExperimentChild(argv[2], omit);
  }
  if (cmd == "help" || cmd == "--help" || cmd == "-h") return Usage(stdout);
  for (const SubcommandDef& c : kSubcommands)
    if (cmd == c.name)
      for (int i = 2; i < argc; i++)
        if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") return SubcommandUsage(c);
  std::map<std::string, std::string> flags;
  std::vector<std::string> args;
  std::string err;
  if (cmd != "experiment" && cmd != "run" && cmd != "sweep")
    return Bad("unknown subcommand '" + cmd + "' (experiment, sweep, run, help)");
  if (!ParseFlags(argc, argv, 2, &flags, &args, &err)) return Bad(err);
  if (!CheckArch(flags["arch"], &err)) return Bad(err);
  if (cmd == "experiment") return Experiment(flags, args);
  if (cmd == "sweep") return SweepCmd(flags, args);
  return Run(flags, args);
}

}  // namespace safepoint

int main(int argc, char** argv) { return safepoint::Main(argc, argv); }
