// Input fuzzer of the command line (issue 9's input fuzzers): the input is
// the words after `safepoint`, separated by NUL bytes (at most kMaxWords
// words of at most kMaxWordBytes bytes each; the rest is cut off), handed
// to harness::ParseCommandLine, the parse cmd/safepoint.cc runs. Whatever
// the words:
//   - a refusal is one non-empty line naming the word it is about (the
//     flag, its value or the subcommand), and only a command line without
//     a subcommand is refused with the usage instead (the words are echoed
//     as they are, so a word with a newline makes two lines: allowed);
//   - an accepted command line is a known subcommand with its number of
//     positional words, every `--` word a known flag that applies to it,
//     every value in its documented range (GOMAXPROCS in [1, 64], a known
//     mutation that applies to this port, ...), and every flag that does
//     not apply to it at its default;
//   - parsing the same words twice gives the same answer, and an accepted
//     command line rendered back to words (harness::RenderCommandLine)
//     parses to itself.
// A broken property aborts with "flags_fuzz: what: detail".
//
// Run by the suite for a fixed number of runs from a fixed seed on every
// port; longer by hand:
//   bazel run --config=CONFIG //fuzz:flags_fuzz -- -max_total_time=600 -dict=fuzz/flags.dict fuzz/corpus/flags
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/flags.h"
#include "harness/mutations.h"
#include "platforms/native.h"
#include "runtime/options.h"

namespace {

using namespace safepoint;
using harness::Action;
using harness::CommandLine;
using harness::FlagError;

constexpr size_t kMaxWords = 24;
constexpr size_t kMaxWordBytes = 256;

std::string Show(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += " '" + w + "'";
  return "safepoint" + s;
}

[[noreturn]] void Broken(const char* what, const std::vector<std::string>& words, const std::string& detail) {
  fprintf(stderr, "flags_fuzz: %s: %s\n  words: %s\n", what, detail.c_str(), Show(words).c_str());
  abort();
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return s;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return Lower(haystack).find(Lower(needle)) != std::string::npos;
}

// Whether `message` names `word`: the word itself, or for `--name=value`
// its `--name`, its name or its value; an empty word quoted.
bool Names(const std::string& message, const std::string& word) {
  if (word.empty()) return Contains(message, "''");
  if (Contains(message, word)) return true;
  if (word.rfind("--", 0) != 0) return false;
  size_t eq = word.find('=');
  std::string flag = word.substr(0, eq), key = flag.substr(2);
  std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
  return Contains(message, flag) || (!key.empty() && Contains(message, key)) ||
         (!value.empty() && Contains(message, value));
}

bool IsHelp(const std::string& w) { return w == "--help" || w == "-h"; }

std::string Describe(const FlagError& e) {
  return "word " + std::to_string(e.word) + (e.usage ? " usage" : "") + (e.after_input ? " after input" : "") + ": " +
         e.message;
}

harness::FlagContext Context() {
  harness::FlagContext ctx;
  ctx.native = &NativePort();
  // A config of the native port, as the runner would name one.
  ctx.config = std::string(NativePort().name) + "_qemu";
  ctx.config_port = NativePort().name;
  return ctx;
}

// The table's defaults are the CommandLine's: every subcommand given just
// its positional words parses to a default CommandLine.
void CheckDefaults(const harness::FlagContext& ctx) {
  for (const harness::SubcommandDef& sub : harness::kSubcommands) {
    if (std::string(sub.name) == "help") continue;
    std::vector<std::string> words = {sub.name};
    for (int i = 0; i < sub.args; i++) words.push_back("file" + std::to_string(i));
    CommandLine line, want;
    FlagError err;
    if (!harness::ParseCommandLine(words, ctx, &line, &err)) Broken("a bare subcommand refused", words, err.message);
    want.action = Action::kRun;
    want.cmd = sub.name;
    want.args.assign(words.begin() + 1, words.end());
    if (!(line == want)) Broken("kFlags' defaults are not CommandLine's", words, "");
  }
}

void CheckRefusal(const std::vector<std::string>& words, const FlagError& err, const CommandLine& line) {
  if (err.message.empty()) Broken("a refusal without a message", words, Describe(err));
  bool subcommand = false, help = false, newline = false;
  for (const std::string& w : words) {
    subcommand = subcommand || w.rfind("-", 0) != 0;
    help = help || IsHelp(w);
    newline = newline || w.find('\n') != std::string::npos;
  }
  // The command echoes the words as they are: a word with a newline in it
  // makes a message of two lines (known; the message is kept as it was).
  if (err.message.find('\n') != std::string::npos && !newline)
    Broken("a refusal of more than one line", words, Describe(err));
  if (err.usage != (err.word < 0)) Broken("a refusal naming no word that is not the usage", words, Describe(err));
  if (err.usage) {
    if (subcommand || help) Broken("the usage refused for words with a subcommand or --help", words, Describe(err));
    return;
  }
  if (err.word >= static_cast<int>(words.size())) Broken("a refusal naming a word past the input", words, Describe(err));
  if (!Names(err.message, words[err.word])) Broken("a refusal that does not name its word", words, Describe(err));
  if (err.after_input) {
    // Reported after the command reads its input: sweep's --program or
    // repro's one file, so the subcommand and its words were fine.
    const harness::SubcommandDef* sub = harness::FindSubcommand(line.cmd);
    if (!sub || (line.cmd != "sweep" && line.cmd != "repro") || static_cast<int>(line.args.size()) != sub->args)
      Broken("a refusal after the input of a command without one", words, Describe(err));
  }
}

void CheckAccepted(const std::vector<std::string>& words, const CommandLine& line, const harness::FlagContext& ctx) {
  int first = -1;  // the first word not starting with '-'
  bool help = false;
  for (size_t i = 0; i < words.size(); i++) {
    if (first < 0 && words[i].rfind("-", 0) != 0) first = static_cast<int>(i);
    help = help || IsHelp(words[i]);
  }
  std::string cmd = first < 0 ? "" : words[first];
  if (line.cmd != cmd) Broken("the subcommand is not the first word without a dash", words, line.cmd);
  if (line.action == Action::kUsage) {
    if (!(cmd == "help" || (cmd.empty() && help))) Broken("the usage without help asked", words, cmd);
    return;
  }
  const harness::SubcommandDef* sub = harness::FindSubcommand(cmd);
  if (!sub || cmd == "help") Broken("an unknown subcommand accepted", words, cmd);
  if (line.action == Action::kSubcommandUsage) {
    if (!help) Broken("a subcommand's usage without help asked", words, cmd);
    return;
  }
  if (help) Broken("help asked and the subcommand run", words, cmd);
  // The words: the subcommand, flags that apply, the positional words.
  size_t flags = 0;
  for (size_t i = 0; i < words.size(); i++) {
    const std::string& w = words[i];
    if (static_cast<int>(i) == first || w.rfind("--", 0) != 0) continue;
    flags++;
    size_t eq = w.find('=');
    const harness::FlagDef* d = harness::FindFlag(w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2));
    if (!d) Broken("an unknown flag accepted", words, w);
    if (!harness::FlagApplies(*d, cmd)) Broken("a flag accepted where it does not apply", words, w);
    if (d->boolean != (eq == std::string::npos)) Broken("a flag's value accepted in the wrong form", words, w);
  }
  if (line.args.size() + flags + 1 != words.size()) Broken("words lost or made up", words, std::to_string(line.args.size()));
  if (static_cast<int>(line.args.size()) != sub->args) Broken("the wrong number of positional words", words, cmd);
  // Every value in its range.
  if (line.gomaxprocs < 1 || line.gomaxprocs > 64) Broken("GOMAXPROCS out of [1, 64]", words, std::to_string(line.gomaxprocs));
  if (!(line.deadline_s >= 0.01 && line.deadline_s <= 600)) Broken("--deadline out of [0.01, 600]", words, std::to_string(line.deadline_s));
  if (line.times < 1 || line.times > 100000) Broken("--times out of [1, 100000]", words, std::to_string(line.times));
  if (line.max_failures > 1000000000u) Broken("--max-failures out of [0, 1e9]", words, std::to_string(line.max_failures));
  if (!(line.timeout_s >= 0 && line.timeout_s <= 1e6)) Broken("--timeout out of [0, 1e6]", words, std::to_string(line.timeout_s));
  if (line.xstate_scan != XStateScan::kGo126 && line.xstate_scan != XStateScan::kGo127)
    Broken("--xstate-scan neither go1.26 nor go1.27", words, "");
  Debug d;
  std::string why;
  if (!ParseGodebug(line.godebug, &d, &why)) Broken("a GODEBUG accepted that the runtime refuses", words, why);
  if (line.mutate.empty() || line.mutate == "list") {
    if (line.mutation) Broken("a mutation without a name", words, line.mutate);
    if (line.mutate == "list" && cmd != "sweep") Broken("--mutate=list outside sweep", words, cmd);
  } else {
    if (line.mutation != harness::FindMutation(line.mutate) || !line.mutation)
      Broken("--mutate names no mutation, or another", words, line.mutate);
    if (!harness::MutationInapplicable(*line.mutation, *ctx.native).empty())
      Broken("a mutation accepted that does not apply to this port", words, line.mutate);
  }
  if (!line.arch.empty() && line.arch != ctx.config && line.arch != NativePort().name)
    Broken("--arch accepted for another port", words, line.arch);
  // Every flag away from its default applies and was given.
  std::vector<std::string> again = harness::RenderCommandLine(line);
  for (size_t i = 1; i < again.size(); i++) {
    const std::string& w = again[i];
    if (w.rfind("--", 0) != 0) continue;
    std::string flag = w.substr(0, w.find('='));
    const harness::FlagDef* def = harness::FindFlag(flag.substr(2));
    if (!def || !harness::FlagApplies(*def, cmd)) Broken("a flag that does not apply is off its default", words, w);
    bool given = false;
    for (const std::string& in : words) given = given || in == flag || in.rfind(flag + "=", 0) == 0;
    if (!given) Broken("a flag off its default that was not given", words, w);
  }
  // Rendered back to words, it parses to itself.
  CommandLine round;
  FlagError err;
  if (!harness::ParseCommandLine(again, ctx, &round, &err)) Broken("the rendered words are refused", again, err.message);
  if (!(round == line)) Broken("the rendered words parse to another command line", again, Show(words));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const harness::FlagContext ctx = Context();
  static const bool defaults_checked = (CheckDefaults(ctx), true);
  (void)defaults_checked;
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t i = 0; i <= size && words.size() < kMaxWords; i++) {
    if (i < size && data[i] != 0) continue;
    size_t n = i - start;
    if (n > kMaxWordBytes) n = kMaxWordBytes;
    words.emplace_back(reinterpret_cast<const char*>(data) + start, n);
    start = i + 1;
  }
  if (size == 0) words.clear();  // no bytes: no words at all
  CommandLine line, line2;
  FlagError err, err2;
  bool ok = harness::ParseCommandLine(words, ctx, &line, &err);
  bool ok2 = harness::ParseCommandLine(words, ctx, &line2, &err2);
  if (ok != ok2 || !(line == line2) || err.message != err2.message || err.word != err2.word ||
      err.usage != err2.usage || err.after_input != err2.after_input)
    Broken("the same words parsed twice differ", words, ok ? "accepted once" : Describe(err));
  if (ok) {
    if (!err.message.empty()) Broken("accepted with a message", words, err.message);
    CheckAccepted(words, line, ctx);
  } else {
    CheckRefusal(words, err, line);
  }
  return 0;
}
