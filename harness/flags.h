// The command line of `safepoint` (cmd/safepoint.cc), parsed and checked:
// the flag and subcommand tables, the split of `--name=value` and boolean
// `--name` flags, unknown and misplaced flags, and every flag's value
// (--arch, --gomaxprocs, --deadline, --times, --xstate-scan, --mutate,
// --godebug, ...), in the order the command has always reported them.
//
// ParseCommandLine is a pure function: the argument words in, a
// CommandLine or one refusal out. It prints nothing, exits nowhere, reads
// no file and no environment variable (what it needs to know about the
// world, the port this binary is built for and the runner's config, comes
// in a FlagContext). What needs the file system stays in the command: the
// program file of `run`, sweep's --program, repro's input. The command
// prints a refusal as "safepoint: MESSAGE" and exits with status 2;
// fuzz/flags_fuzz.cc feeds it any words at all.
//
// Only the `--name=value` spelling takes a value: `--name value` is
// refused ("--name needs a value (--name=...)"), so a value can never be
// taken for the program file or the other way round.
#ifndef SAFEPOINT_HARNESS_FLAGS_H_
#define SAFEPOINT_HARNESS_FLAGS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "harness/mutations.h"
#include "platforms/port.h"
#include "runtime/options.h"

namespace safepoint::harness {

struct FlagDef {
  const char* name;
  const char* def;
  // "run, sweep: what it does": the subcommands it applies to, before the
  // colon (a help without a colon applies to all).
  const char* help;
  bool boolean;
};
// Every flag, once: name, default, help.
inline constexpr FlagDef kFlags[] = {
    {"arch", "", "the config this binary must run as (a port, or a config of one: see platforms/PORTS)", false},
    {"deadline", "1", "experiment: seconds a child may run before it counts as not preempted", false},
    {"omit-stack-check", "", "experiment: the mutation with no stack-check prologues", true},
    {"gomaxprocs", "1", "run: the number of Ps", false},
    {"godebug", "", "run: the GODEBUG value", false},
    {"events", "", "run: print every recorded event (time, M, P, G, event, reason, source, PC as function+offset and IR line)", true},
    {"json", "", "run, go-sweep: print the report (globals, counts, with --events the events) as one JSON object", true},
    {"program", "", "sweep: a program description file (default: the built-in program)", false},
    {"runtimesecret", "", "sweep: run under GOEXPERIMENT=runtimesecret", true},
    {"mutate", "", "sweep, repro: a mutation to show the sweep fails, or the one a fuzz campaign ran under (--mutate=list lists them)", false},
    {"times", "100", "repro: replays of the input (each a fresh runtime)", false},
    {"no-triage", "", "repro: no second opinion from another emulator configuration or natively", true},
    {"show", "", "repro: print the case first: its settings and its program as text (save it to run it with safepoint run)", true},
    {"max-failures", "20", "sweep: failures listed in detail (all are counted)", false},
    {"collect", "", "sweep: a whole collection (and a stack shrink) at every accepted preemption, judged by the liveness oracle too; the built-in heap program unless --program", true},
    {"no-frame-table", "", "sweep, go-sweep: do not judge the function table against the machine at each trap (to time the frame-table oracle's cost)", true},
    {"xstate-scan", "go1.27", "run, sweep: whether the collector scans the saved vector registers: go1.27 (conservatively) or go1.26 (not at all)", false},
    {"coverage", "", "gen: instead of a program, the generator's coverage report (exit 1 when a row is at zero)", true},
    {"seed", "1", "gen: the seed of the program to print", false},
    {"seeds", "200", "gen: with --coverage, the seeds counted (the property test's 200)", false},
    {"go", "1.26", "go-sweep: the Go version of a program named from goprogs/ (1.19, 1.24 or 1.26)", false},
    {"request", "sched", "go-sweep: how the preemption is asked for: sched (g.preempt, as the scheduler and sysmon ask); gc (g.preemptStop, as suspendG asks, while a collection marks: the goroutine parks at the stop and the stack scan meets it there)", false},
    {"stress", "none", "go-sweep: what meets each accepted goroutine besides: none; collection (collections forced all along); traceback (SIGQUIT as it enters asyncPreempt: the runtime's traceback of every goroutine, judged; one guest run per accepted probe)", false},
    {"func", "^main\\.", "go-sweep: the functions whose every instruction is probed (a regular expression searched in each name)", false},
    {"pc", "", "go-sweep: probe only these instructions (hexadecimal PCs, comma-separated): a finding's replay", false},
    {"findings", "", "go-sweep: write every finding, with the command that replays it alone, to this file", false},
    {"timeout", "0", "run, sweep, go-sweep: seconds before giving up with exit status 3 (0: none)", false},
};

struct SubcommandDef {
  const char* name;
  const char* usage;
  const char* help;
  int args;              // the positional words it takes (help: any)
  const char* wrong_args;  // the refusal of any other number of them
};
// Every subcommand, once: name, usage line, what it does.
inline constexpr SubcommandDef kSubcommands[] = {
    {"experiment", "safepoint experiment [--deadline=S] [--omit-stack-check]",
     "the chapter's 9.7.1 experiment on this port: three loops that never yield, each in a child process\n"
     "with GOMAXPROCS=1, with asyncpreemptoff=1 and without; prints the chapter's six lines",
     0, "experiment takes no arguments"},
    {"sweep", "safepoint sweep [--program=FILE] [--runtimesecret] [--mutate=M] [--collect] [--no-frame-table] [--xstate-scan=V]",
     "preempts at every instruction of every function, one at a time, by armed delivery; fails on any\n"
     "disagreement with the decision oracle or any change of the program's end state; with --collect a\n"
     "whole collection runs at every accepted preemption, and an object lost fails it too",
     0, "sweep takes no arguments (use --program=FILE)"},
    {"run", "safepoint run [--gomaxprocs=N] [--godebug=S] [--events] [--json] FILE",
     "runs a program description's main.main; prints its globals and what the runtime did, per goroutine\n"
     "and in total (with --events every event; with --json all of it as one JSON object)",
     1, "run needs exactly one program file"},
    {"repro", "safepoint repro [--times=N] [--mutate=M] [--no-triage] [--show] FILE",
     "replays a preemption fuzzer input (a crash artifact of fuzz/preempt_fuzz) N times on this port, judged\n"
     "by every oracle: the same verdict every time, or it says how they differ; a failing case is replayed\n"
     "natively (amd64 under QEMU) or under one-instruction translation blocks, to tell a runtime bug from the emulator's",
     1, "repro needs exactly one input file (a fuzz/preempt_fuzz crash artifact)"},
    {"gen", "safepoint gen [--seed=S] | safepoint gen --coverage [--seeds=N]",
     "prints the program the generator makes from a seed (the property test's and the fuzzer's programs);\n"
     "with --coverage, how many programs have each operation, attribute, control and pointer shape and\n"
     "frame band, over N seeds and the preemption fuzzer's decoder (1000 fixed pseudo-random inputs)",
     0, "gen takes no arguments"},
    {"rules", "safepoint rules",
     "lists the refusal rules of isAsyncSafePoint and canPreemptM, in the runtime's order,\n"
     "with the chapter section that states each (the tests that check them: conformance/RULES.md)",
     0, "rules takes no arguments"},
    {"go-sweep", "safepoint go-sweep [--go=V] [--request=sched|gc] [--stress=none|collection|traceback] [--func=REGEX] [--pc=PC,...] [--json] [--findings=FILE] BINARY|PROGRAM",
     "the real Go runtime under test: stops an unmodified Go binary (or a program of goprogs/ built with\n"
     "Go --go for this config's CPU) at every instruction of the chosen functions, asks for a preemption as the\n"
     "scheduler does and delivers SIGURG; each verdict judged against the binary's own tables, each accepted\n"
     "stop's frames against its pcsp, and the program's output against an unpreempted run's; exit 0 clean,\n"
     "1 findings, 2 bad input",
     1, "go-sweep needs exactly one Go binary or program name"},
    {"help", "safepoint help | safepoint SUBCOMMAND --help", "prints this help", 0, ""},
};

// The flag or subcommand called `name`, or nullptr.
const FlagDef* FindFlag(const std::string& name);
const SubcommandDef* FindSubcommand(const std::string& name);
// Whether flag d may be given to subcommand `cmd` (--arch: to all).
bool FlagApplies(const FlagDef& d, const std::string& cmd);

// What the parse may know of the world, given by the caller.
struct FlagContext {
  const PortInfo* native = nullptr;  // the port this binary is built for
  // The runner's config and its port (SAFEPOINT_CONFIG, SAFEPOINT_ARCH):
  // --arch=CONFIG names that port. Empty when not run by the runner.
  std::string config;
  std::string config_port;
};

enum class Action {
  kUsage,            // the general usage, on standard output, status 0
  kSubcommandUsage,  // `safepoint CMD --help`
  kRun,              // run `cmd`
};

// An accepted command line. Each flag's value is its default (kFlags'
// `def`) unless the words gave it; a flag that does not apply to `cmd`
// always has its default.
struct CommandLine {
  Action action = Action::kUsage;
  std::string cmd;                // a kSubcommands name; "" for kUsage
  std::vector<std::string> args;  // the positional words, in order
  std::string arch;               // "" or one the context accepts
  double deadline_s = 1;          // [0.01, 600]
  bool omit_stack_check = false;
  int gomaxprocs = 1;  // [1, 64]
  std::string godebug;  // ParseGodebug accepts it
  bool events = false;
  bool json = false;
  std::string program;  // sweep's file ("" for the built-in program)
  bool runtimesecret = false;
  std::string mutate;  // "", "list" (sweep only) or a mutation's name
  // Its row (nullptr for "" and "list"), applicable to the context's port.
  const MutationDef* mutation = nullptr;
  int times = 100;  // [1, 100000]
  bool no_triage = false;
  bool show = false;
  size_t max_failures = 20;  // [0, 1e9]
  bool collect = false;
  bool no_frame_table = false;
  bool coverage = false;
  double seed = 1;   // [0, 2^53], an integer
  int seeds = 200;   // [1, 100000]
  XStateScan xstate_scan = XStateScan::kGo127;
  double timeout_s = 0;  // [0, 1e6]; 0: none
  std::string go = "1.26";          // go-sweep: 1.19, 1.24 or 1.26
  std::string request = "sched";    // go-sweep: sched or gc
  std::string stress = "none";      // go-sweep: none, collection or traceback
  std::string func = "^main\\.";    // go-sweep: a valid regular expression
  std::vector<uint64_t> pcs;        // go-sweep: --pc, in the order given
  std::string findings;             // go-sweep: the findings file

  bool operator==(const CommandLine&) const = default;
};

// A refused command line.
struct FlagError {
  std::string message;  // one line, without the "safepoint: " prefix
  // The word the message is about (an index into the words), -1 when the
  // words have no subcommand at all: then `usage` is set and the command
  // prints its usage on standard error instead of the message.
  int word = -1;
  bool usage = false;
  // The command reads its input (sweep's --program, repro's FILE, and
  // decodes repro's case) before it reports this refusal, as it always has:
  // a missing file is named before a bad --mutate. `line` holds all that
  // was parsed before the refusal (cmd, args, program).
  bool after_input = false;
};

// Parses the words after the program name (argv[1..]). The subcommand is
// the first word not starting with '-', so flags may come before or after
// it; --help or -h anywhere asks for help. True with *line filled, or false
// with *err filled and *line holding what was parsed before the refusal.
bool ParseCommandLine(const std::vector<std::string>& words, const FlagContext& ctx, CommandLine* line,
                      FlagError* err);

// The words of a command line that parses to `line` again: the subcommand,
// every flag that applies to it and is not at its default (`--name=value`,
// numbers in full precision), then the positional words.
std::vector<std::string> RenderCommandLine(const CommandLine& line);

}  // namespace safepoint::harness

#endif
