// The command as users meet it: `safepoint` is started as a user starts it
// (through the config's emulator, from another directory), and what it
// prints and its exit status are checked. Every start is bounded: a run
// that does not end in time is killed and fails, naming what it ran.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/events.h"
#include "platforms/native.h"

namespace safepoint {
namespace {

std::string Runfile(const std::string& rel) {
  const char* src = getenv("TEST_SRCDIR");
  return std::string(src ? src : ".") + "/safepoint/" + rel;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TempDir() {
  const char* t = getenv("TEST_TMPDIR");
  static int n = 0;
  std::string d = std::string(t ? t : "/tmp") + "/cmd" + std::to_string(getpid()) + "_" + std::to_string(n++);
  mkdir(d.c_str(), 0755);
  return d;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Under the sanitizer config ASan says once that it saw a stack switch
// ("==N==WARNING: ASan is ignoring requested __asan_handle_no_return ...",
// then two more lines): the runtime's, not the program's output.
std::string WithoutSanitizerNotes(const std::string& err) {
  if (!getenv("SAFEPOINT_SANITIZED")) return err;
  std::istringstream in(err);
  std::string out, line;
  while (std::getline(in, line)) {
    bool note = (line.rfind("==", 0) == 0 && line.find("WARNING: ASan is ignoring") != std::string::npos) ||
                line == "False positive error reports may follow" ||
                line.rfind("For details see https://github.com/google/sanitizers/issues/189", 0) == 0;
    if (!note) out += line + "\n";
  }
  return out;
}

struct Result {
  int status = -1;  // exit status; -1 when it did not end by itself
  std::string out, err;
};

// Starts safepoint ARGS in dir (through $SAFEPOINT_EMULATOR, as the runner
// starts every binary of this config) and waits at most `bound` seconds.
Result Safepoint(const std::vector<std::string>& args, const std::string& dir = "", int bound = 120) {
  std::string d = dir.empty() ? TempDir() : dir;
  std::string out = d + "/.stdout", err = d + "/.stderr";
  std::vector<std::string> argv;
  std::istringstream emu(getenv("SAFEPOINT_EMULATOR") ? getenv("SAFEPOINT_EMULATOR") : "");
  for (std::string w; emu >> w;) argv.push_back(w);
  argv.push_back(Runfile("cmd/safepoint"));
  argv.insert(argv.end(), args.begin(), args.end());
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(d.c_str()) != 0) _exit(126);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1), dup2(e, 2);
    std::vector<char*> cargv;
    for (std::string& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  Result r;
  int st = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(bound);
  while (waitpid(pid, &st, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      std::string line;
      for (const std::string& a : args) line += " " + a;
      ADD_FAILURE() << "safepoint" << line << " did not end within " << bound << " s";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = Slurp(out), r.err = WithoutSanitizerNotes(Slurp(err));
  return r;
}

// A small JSON reader, enough to prove --json's output is one well-formed
// object and to read fields of it.
struct Json {
  enum Kind { kNull, kBool, kNum, kStr, kArr, kObj } kind = kNull;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;
  const Json& operator[](const std::string& k) const {
    static const Json none;
    auto it = obj.find(k);
    return it == obj.end() ? none : it->second;
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}
  bool Document(Json* out) {
    if (!Value(out)) return false;
    Space();
    return i_ == s_.size();
  }

 private:
  void Space() {
    while (i_ < s_.size() && isspace(static_cast<unsigned char>(s_[i_]))) i_++;
  }
  bool Lit(const char* w) {
    size_t n = strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }
  bool String(std::string* out) {
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    for (i_++; i_ < s_.size(); i_++) {
      char c = s_[i_];
      if (c == '"') return i_++, true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (++i_ >= s_.size()) return false;
        char e = s_[i_];
        if (e == 'u') {
          if (i_ + 4 >= s_.size()) return false;
          *out += static_cast<char>(std::stoi(s_.substr(i_ + 1, 4), nullptr, 16));
          i_ += 4;
        } else if (strchr("\"\\/", e)) {
          *out += e;
        } else if (strchr("bfnrt", e)) {
          *out += e == 'n' ? '\n' : e == 't' ? '\t' : ' ';
        } else {
          return false;
        }
      } else {
        *out += c;
      }
    }
    return false;
  }
  bool Value(Json* v) {
    Space();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') {
      v->kind = Json::kObj;
      i_++;
      Space();
      if (i_ < s_.size() && s_[i_] == '}') return i_++, true;
      for (;;) {
        Space();
        std::string k;
        if (!String(&k)) return false;
        Space();
        if (i_ >= s_.size() || s_[i_++] != ':') return false;
        if (v->obj.count(k) || !Value(&v->obj[k])) return false;  // no duplicate keys
        Space();
        if (i_ < s_.size() && s_[i_] == ',') { i_++; continue; }
        if (i_ < s_.size() && s_[i_] == '}') return i_++, true;
        return false;
      }
    }
    if (c == '[') {
      v->kind = Json::kArr;
      i_++;
      Space();
      if (i_ < s_.size() && s_[i_] == ']') return i_++, true;
      for (;;) {
        v->arr.emplace_back();
        if (!Value(&v->arr.back())) return false;
        Space();
        if (i_ < s_.size() && s_[i_] == ',') { i_++; continue; }
        if (i_ < s_.size() && s_[i_] == ']') return i_++, true;
        return false;
      }
    }
    if (c == '"') return v->kind = Json::kStr, String(&v->str);
    if (Lit("true")) return v->kind = Json::kBool, v->num = 1, true;
    if (Lit("false")) return v->kind = Json::kBool, true;
    if (Lit("null")) return true;
    size_t used = 0;
    try {
      v->num = std::stod(s_.substr(i_, 32), &used);
    } catch (...) {
      return false;
    }
    v->kind = Json::kNum;
    i_ += used;
    return used > 0;
  }
  const std::string& s_;
  size_t i_ = 0;
};

TEST(Command, JsonIsOneObjectWithTheGlobalsAndCountsOfTheRun) {
  Result r = Safepoint({"run", "--json", Runfile("examples/handshake.sp")});
  ASSERT_EQ(r.status, 0) << r.err;
  Json d;
  ASSERT_TRUE(JsonReader(r.out).Document(&d)) << "not one JSON object:\n" << r.out;
  EXPECT_EQ(d["outcome"].str, "ok");
  EXPECT_EQ(d["port"].str, NativePort().name);
  EXPECT_EQ(d["gomaxprocs"].num, 1);
  // The example's "# expect:" lines.
  EXPECT_EQ(d["globals"]["2"].num, 77);
  EXPECT_EQ(d["globals"]["3"].num, 77);
  EXPECT_EQ(d["total"].kind, Json::kObj);
  EXPECT_EQ(d["total"]["refused"].kind, Json::kObj);
  EXPECT_EQ(d["events"].kind, Json::kNull) << "events only with --events";
}

// --events, in both spellings: every event names the M that recorded it and
// the P it held. Each M holds its own P for the whole run, so an event an M
// records carries that P; `resume` (execute) names the P in its arg too; and
// sysmon, an M without a P, records the retakes and signals it sends.
TEST(Command, EventsNameTheirMAndP) {
  // At GOMAXPROCS=1 main's timer cannot run until sysmon has the spinner
  // preempted; at 2 each goroutine has an M.
  for (int procs = 1; procs <= 2; procs++) {
    Result r = Safepoint({"run", "--events", "--json", "--gomaxprocs=" + std::to_string(procs),
                          Runfile("examples/spinner.sp")});
    ASSERT_EQ(r.status, 0) << r.err;
    Json d;
    ASSERT_TRUE(JsonReader(r.out).Document(&d)) << r.out;
    ASSERT_EQ(d["events"].kind, Json::kArr);
    int resumes = 0, by_sysmon = 0, with_line = 0;
    for (const Json& e : d["events"].arr) {
      int m = static_cast<int>(e["m"].num), p = static_cast<int>(e["p"].num);
      EXPECT_GE(m, -1);
      EXPECT_LE(m, procs) << "M ids are 0..GOMAXPROCS-1, and sysmon's is GOMAXPROCS";
      if (m >= 0 && m < procs) EXPECT_EQ(p, m) << "event " << e["seq"].num;
      if (m == procs || m == -1) EXPECT_EQ(p, -1) << "sysmon and the caller's thread hold no P";
      if (e["event"].str == "resume") {
        resumes++;
        EXPECT_EQ(e["arg"].num, p) << "execute's P is the recording M's";
      }
      if (m == procs) {
        by_sysmon++;
        EXPECT_TRUE(e["event"].str == "retake" || e["event"].str == "request" || e["event"].str == "signal-sent" ||
                    e["event"].str == "signal-coalesced" || e["event"].str == "skip")
            << "sysmon recorded " << e["event"].str;
      }
      if (e["func"].str == "main.spin" && e["line"].num > 0) with_line++;
    }
    EXPECT_GE(resumes, 2) << "main and the spinner were each put on an M";
    if (procs == 1 && NativePort().async_preemption()) EXPECT_GE(by_sysmon, 1) << "sysmon preempted the spinner";
    EXPECT_GE(with_line, 1) << "events in main.spin carry its IR source line";
  }

  Result t = Safepoint({"run", "--events", Runfile("examples/spinner.sp")});
  ASSERT_EQ(t.status, 0) << t.err;
  std::string header = t.out.substr(0, t.out.find('\n'));
  for (const char* col : {"seq", " M ", " P ", " G ", "event", "reason", "source", "pc"})
    EXPECT_NE(header.find(col), std::string::npos) << "column " << col << " in: " << header;
  EXPECT_NE(t.out.find("main.spin+0x"), std::string::npos);
  EXPECT_NE(t.out.find("(line "), std::string::npos);
}

const char kDeadlock[] =
    "func main.main\n  go main.w\n  wait 1\n  ret\nend\n"
    "func main.w\n  wait 2\n  ret\nend\n";

TEST(Command, ADeadlockEndsAsGosFatalError) {
  std::string dir = TempDir();
  WriteFile(dir + "/dead.sp", kDeadlock);
  for (int procs = 1; procs <= 4; procs++) {
    Result r = Safepoint({"run", "--gomaxprocs=" + std::to_string(procs), "dead.sp"}, dir);
    EXPECT_EQ(r.status, 2) << "GOMAXPROCS=" << procs << ": " << r.err;
    EXPECT_EQ(r.err, "fatal error: all goroutines are asleep - deadlock!\n") << "GOMAXPROCS=" << procs;
  }
  Result j = Safepoint({"run", "--json", "dead.sp"}, dir);
  EXPECT_EQ(j.status, 2);
  Json d;
  ASSERT_TRUE(JsonReader(j.out).Document(&d)) << j.out;
  EXPECT_EQ(d["outcome"].str, "fatal");
  EXPECT_EQ(d["error"].str, "all goroutines are asleep - deadlock!");
}

// Fatal runtime errors end as Go's do: "runtime: ..." and "fatal error:
// ...", status 2, never a signal or an abort of the harness: unbounded
// recursion (stack overflow) and a goroutine bomb (out of memory: the
// kernel's map count runs out first).
TEST(Command, FatalRuntimeErrorsAreGosMessagesAndStatus2) {
  std::string dir = TempDir();
  WriteFile(dir + "/rec.sp", "func main.main\n  call main.rec\n  ret\nend\nfunc main.rec frame=512\n  call main.rec\n  ret\nend\n");
  WriteFile(dir + "/bomb.sp",
            "func main.main\nloop:\n  go main.block\n  jmp loop\nend\nfunc main.block\n  wait 5\n  ret\nend\n");
  Result rec = Safepoint({"run", "rec.sp"}, dir);
  EXPECT_EQ(rec.status, 2) << rec.err;
  EXPECT_EQ(rec.err, "runtime: goroutine stack exceeds 1048576-byte limit\nfatal error: stack overflow\n");
  // Under ASan the bomb exhausts ASan's own allocator before the kernel's
  // map count: its message, not Go's.
  if (getenv("SAFEPOINT_SANITIZED")) GTEST_SKIP() << "the sanitizer config: ASan runs out of memory before the runtime does";
  Result bomb = Safepoint({"run", "bomb.sp"}, dir);
  EXPECT_EQ(bomb.status, 2) << bomb.err;
  EXPECT_EQ(bomb.err.rfind("runtime: cannot allocate a 2048-byte goroutine stack", 0), 0u) << bomb.err;
  EXPECT_NE(bomb.err.find("\nfatal error: out of memory\n"), std::string::npos) << bomb.err;
}

TEST(Command, TimeoutEndsARunWithItsOwnStatus) {
  std::string dir = TempDir();
  WriteFile(dir + "/long.sp", "func main.main\n  sleep 600000000000\n  ret\nend\n");
  Result r = Safepoint({"run", "--timeout=1", "long.sp"}, dir, 60);
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("timed out after 1 s"), std::string::npos) << r.err;
}

TEST(Command, RelativePathsAreTheCallers) {
  std::string dir = TempDir();
  mkdir((dir + "/progs").c_str(), 0755);
  WriteFile(dir + "/progs/p.sp", "func main.main\n  movi r1, 5\n  st g[4], r1\n  ret\nend\n");
  Result r = Safepoint({"run", "progs/p.sp"}, dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("g[4] = 5\n"), std::string::npos) << r.out;
  // Flags before the subcommand, as the README writes them.
  Result s = Safepoint({"--gomaxprocs=2", "run", "progs/p.sp"}, dir);
  EXPECT_EQ(s.status, 0) << s.err;
}

// Bad input: a message on stderr and exit status 2, never a crash.
TEST(Command, BadInputIsRefusedWithStatus2) {
  std::string dir = TempDir();
  WriteFile(dir + "/empty.sp", "");
  mkdir((dir + "/adir").c_str(), 0755);
  WriteFile(dir + "/cb.sp", "func main.main\n  callback 1\n  ret\nend\n");
  WriteFile(dir + "/big.sp", "func main.main nosplit frame=4080\n  ret\nend\n");
  WriteFile(dir + "/bad.sp", "func main.main\n  frobnicate r1\n  ret\nend\n");
  WriteFile(dir + "/nocase.bin", "");
  WriteFile(dir + "/seed.bin", std::string("\x00\x00\x05\x00", 4));
  struct Case {
    std::vector<std::string> args;
    const char* says;
  } cases[] = {
      {{"frob"}, "unknown subcommand"},
      {{"run", "--frob=1", "empty.sp"}, "unknown flag --frob"},
      {{"sweep", "--events"}, "--events does not apply to sweep"},
      {{"run", "--gomaxprocs=0", "cb.sp"}, "--gomaxprocs=0"},
      {{"run", "--arch=vax", "cb.sp"}, "unknown architecture 'vax'"},
      {{"run", "empty.sp"}, "is empty"},
      {{"run", "adir"}, "is a directory"},
      {{"run", "missing.sp"}, "cannot read missing.sp"},
      {{"run", "/dev/zero"}, "larger than"},
      {{"run", "cb.sp"}, "callback is a test hook"},
      {{"run", "big.sp"}, "nosplit"},
      {{"run", "bad.sp"}, "bad.sp:2"},
      {{"run", "--godebug=asyncpreemptoff", "cb.sp"}, "GODEBUG"},
      {{"sweep", "--program=empty.sp"}, "is empty"},
      {{"sweep", "--program=adir"}, "is a directory"},
      {{"sweep", "--mutate=frob"}, "unknown"},
      {{"sweep", "--max-failures=x"}, "--max-failures"},
      {{"experiment", "extra"}, "takes no arguments"},
      {{"repro", "nocase.bin"}, "nocase.bin is empty"},
      {{"repro", "missing.bin"}, "cannot read missing.bin"},
      {{"repro", "--times=0", "seed.bin"}, "--times=0"},
      {{"repro", "--mutate=frob", "seed.bin"}, "unknown"},
      {{"run", "--xstate-scan=go1.25", "cb.sp"}, "--xstate-scan=go1.25"},
      // Two things wrong: run checks its flags before its file; sweep and
      // repro read their input before --mutate (and sweep before the rest).
      {{"run", "--gomaxprocs=0", "missing.sp"}, "--gomaxprocs=0"},
      {{"sweep", "--program=missing.sp", "--mutate=frob"}, "cannot read missing.sp"},
      {{"sweep", "--program=missing.sp", "--xstate-scan=go1.25"}, "cannot read missing.sp"},
      {{"repro", "--mutate=frob", "nocase.bin"}, "nocase.bin is empty"},
      {{"repro", "--times=0", "missing.bin"}, "--times=0"},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const std::string& a : c.args) line += " " + a;
    Result r = Safepoint(c.args, dir);
    EXPECT_EQ(r.status, 2) << "safepoint" << line << ": " << r.err;
    EXPECT_EQ(r.err.rfind("safepoint: ", 0), 0u) << "safepoint" << line << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "safepoint" << line << " said: " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
}

// A fuzz input replays with one verdict, every time: here the built-in
// sweep program preempted at one instruction, fine five times out of five.
// (Bad inputs: Command.BadInputIsRefusedWithStatus2.)
TEST(Command, ReproReplaysAPreemptionFuzzInput) {
  std::string dir = TempDir();
  WriteFile(dir + "/seed.bin", std::string("\x00\x00\x29\x00", 4));
  Result r = Safepoint({"repro", "--times=5", "seed.bin"}, dir);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("5/5  ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the built-in sweep program, settings 0x00"), std::string::npos) << r.out;
}

// gen prints the program a seed makes, the same twice and one that `run`
// takes; --coverage prints every row of the generator's report with none at
// zero (the suite's generator_coverage_test reads the seed corpus too).
TEST(Command, GenPrintsASeedsProgramAndTheCoverageReport) {
  std::string dir = TempDir();
  Result a = Safepoint({"gen", "--seed=7"}), b = Safepoint({"gen", "--seed=7"});
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("func main.main"), std::string::npos) << a.out;
  EXPECT_NE(Safepoint({"gen", "--seed=8"}).out, a.out);
  WriteFile(dir + "/gen7.sp", a.out);
  Result run = Safepoint({"run", "gen7.sp"}, dir);
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  Result cov = Safepoint({"gen", "--coverage"});
  EXPECT_EQ(cov.status, 0) << cov.out << cov.err;
  for (const char* row : {"(an early return)", "request", "inlined bodies nested three deep", "frame"})
    EXPECT_NE(cov.out.find(row), std::string::npos) << "no row '" << row << "' in:\n" << cov.out;
  EXPECT_EQ(cov.out.find("AT ZERO"), std::string::npos) << cov.out;
  EXPECT_EQ(Safepoint({"gen", "--seeds=0", "--coverage"}).status, 2);
  EXPECT_EQ(Safepoint({"gen", "--seed=-1"}).status, 2);
  EXPECT_EQ(Safepoint({"gen", "extra"}).status, 2);
}

TEST(Command, HelpAndListsExit0) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"--help"}, {"help"}, {"run", "--help"}, {"sweep", "--help"}, {"experiment", "--help"}, {"repro", "--help"}, {"gen", "--help"}, {"rules"},
           {"sweep", "--mutate=list"}}) {
    Result r = Safepoint(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
    EXPECT_FALSE(r.out.empty());
  }
  Result rules = Safepoint({"rules"});
  for (int i = 1; i < static_cast<int>(Reason::kCount); i++) {
    std::string name = ReasonName(static_cast<Reason>(i));
    if (name == "no-request" || name == "asyncpreemptoff") continue;  // not refusals
    if (name == "no-m" || name == "self" || name == "g0" || name == "syscall") continue;  // preemptone's skips
    EXPECT_NE(rules.out.find(name), std::string::npos) << "rules lists " << name;
  }
  Result bare = Safepoint({});
  EXPECT_EQ(bare.status, 2) << "no subcommand is a usage error";
}

// A branch is refused, with its line, exactly when it spans more than the
// port's declared reach (PortModel::branch_reach): every vdump is at least
// 16 bytes of code, so a program of reach/16 + 1 of them between a jnz and
// its label is beyond it and must be refused. Where that program would pass
// the input limit (amd64's and loong64's reach), the largest one is run: a
// refusal must name a span beyond the reach, an acceptance must run.
TEST(Command, ABranchIsRefusedExactlyBeyondThePortsReach) {
  const int64_t reach = NativePort().model.branch_reach.cond;
  const int64_t max_lines = 90000;  // "  vdump 0\n" x 90000: 900 KB, under the 1 MiB input limit
  const int64_t lines = std::min<int64_t>(reach / 16 + 1, max_lines);
  std::string text = "func main.main\n  movi r1, 0\n  jnz r1, far\n";
  for (int64_t i = 0; i < lines; i++) text += "  vdump 0\n";
  text += "far:\n  movi r1, 9\n  st g[1], r1\n  ret\nend\n";
  std::string dir = TempDir();
  WriteFile(dir + "/far.sp", text);
  Result r = Safepoint({"run", "far.sp"}, dir);
  long long span = 0;
  size_t at = r.err.find("line 3: jnz far spans ");
  if (lines * 16 > reach) EXPECT_EQ(r.status, 2) << "at least " << lines * 16 << " bytes must be refused: " << r.err;
  if (r.status == 2) {
    ASSERT_NE(at, std::string::npos) << r.err;
    ASSERT_EQ(sscanf(r.err.c_str() + at, "line 3: jnz far spans %lld bytes", &span), 1) << r.err;
    EXPECT_GT(span, reach) << "refused within the reach: " << r.err;
    EXPECT_GE(span, lines * 16) << r.err;
    EXPECT_NE(r.err.find("conditional branches reach " + std::to_string(reach) + " bytes (PortModel::branch_reach)"),
              std::string::npos)
        << r.err;
  } else {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("g[1] = 9\n"), std::string::npos) << r.out;
  }
}

// --mutate=list says which mutations apply here; one that does not is
// refused with the reason (no-restart where the port has no restartable
// sequences, as on amd64).
// The line `sweep --mutate=list` prints for mutation m ("" if none).
std::string MutationLine(const std::string& m) {
  Result list = Safepoint({"sweep", "--mutate=list"});
  EXPECT_EQ(list.status, 0) << list.err;
  size_t at = list.out.find(m);
  EXPECT_NE(at, std::string::npos) << list.out;
  return at == std::string::npos ? "" : list.out.substr(at, list.out.find('\n', at) - at);
}

TEST(Command, AMutationThatDoesNotApplyIsRefused) {
  std::string line = MutationLine("no-restart");
  ASSERT_FALSE(line.empty());
  bool applies = NativePort().model.regtmp_restartable && NativePort().async_preemption();
  EXPECT_EQ(line.find("[not here") == std::string::npos, applies) << line;
  if (!applies) {
    Result r = Safepoint({"sweep", "--mutate=no-restart"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("does not apply"), std::string::npos) << r.err;
  }
}

// stack-room-off-by-one applies wherever asynchronous preemption does, but
// where SP keeps 16-byte alignment no run reaches the one word it admits:
// the list says so (a fuzz campaign has nothing to find there).
TEST(Command, TheListSaysWhereNoRunShowsAMutation) {
  std::string line = MutationLine("stack-room-off-by-one");
  ASSERT_FALSE(line.empty());
  if (!NativePort().async_preemption()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  EXPECT_EQ(line.find("[no run shows it here") != std::string::npos, NativePort().sp_align == 16) << line;
  EXPECT_EQ(line.find("[not here"), std::string::npos) << line;
}

// The half-vector mutation applies on every port with asynchronous
// preemption, and the sweep it runs fails, naming the vector registers
// saved wrongly (the save-area oracle, at the preemption) or the vector
// dump chunks the preemption changed (invisibility): whichever come first
// within --max-failures.
TEST(Command, TheHalfVectorMutationFailsTheSweep) {
  std::string line = MutationLine("half-vector");
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.find("[not here") == std::string::npos, NativePort().async_preemption()) << line;
  if (!NativePort().async_preemption()) GTEST_SKIP() << "port " << NativePort().name << " has no asynchronous preemption";
  Result r = Safepoint({"sweep", "--mutate=half-vector"}, "", 300);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  bool vector_named = false;
  for (const SavedReg& reg : NativePort().saved_regs)
    if (reg.kind == SavedReg::kVector && reg.tier == 0)
      vector_named = vector_named || r.out.find("registers: " + std::string(reg.name) + ": saved") != std::string::npos ||
                     r.out.find("; " + std::string(reg.name) + ": saved") != std::string::npos;
  EXPECT_TRUE(vector_named || r.out.find(" vdump[") != std::string::npos)
      << "neither a vector register of the save area nor the vector dump is named: " << r.out;
}

}  // namespace
}  // namespace safepoint
