#!/usr/bin/env bash
# Every field of the judge's verdict (oracle::Judgement), of what it judges
# (harness::Observation) and of the end state the invisibility oracle
# compares (harness::EndState) is named below with the test that changes
# it alone and asserts the judge reports it, or, for the few no oracle
# reads, with why. The fields are read from the headers' text, so a field
# added without a test (or a row left behind by a field renamed or removed,
# or a row naming a test that is not in its file) fails this test. First
# proves the reader on a synthetic header, and that a new field is caught.
set -uo pipefail
cd "${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-}" 2>/dev/null || true

# STRUCT FIELD FILE TEST: TEST is Suite.Name, or Suite.* for any test of
# the suite. STRUCT FIELD -- WHY: read by no oracle.
COVERED='
Judgement reached oracle/judge_fields_test.cc JudgeFields.NothingIsJudgedWhereTheArmedInstructionWasNotReached
Judgement expect oracle/judge_fields_test.cc JudgeFields.ARefusalIsJudgedByItsReason
Judgement got oracle/judge_fields_test.cc JudgeFields.AnAcceptanceInPlaceAgreesAndAResumeElsewhereDoesNot
Judgement agree oracle/decision_test.cc DecisionAgrees.ARefusalAgreesOnlyUnderItsOwnRule
Judgement agree oracle/judge_fields_test.cc JudgeFields.UnderAsyncpreemptoffOnlyNoDecisionOrNotWantedAgree
Judgement state_diff oracle/judge_fields_test.cc JudgeFields.TheEndStateIsComparedWithTheBaseline
Judgement lost oracle/judge_fields_test.cc JudgeFields.ATouchedFreedObjectIsLost
Judgement run_error oracle/judge_fields_test.cc JudgeFields.AFailedRunIsReportedWithItsError
Judgement protocol oracle/judge_fields_test.cc JudgeFields.TheEventsAreJudgedByTheProtocol
Judgement progress oracle/judge_test.cc Judge.SysmonThatNeverRetookIsAProgressFinding
Judgement save_wrong oracle/judge_fields_test.cc JudgeFields.TheSaveAreaIsComparedWithTheTrapsRegisters
Judgement save_compared oracle/judge_fields_test.cc JudgeFields.TheSaveAreaIsComparedWithTheTrapsRegisters
Judgement point oracle/judge_fields_test.cc JudgeFields.AChainsFurtherPointsAreJudgedAndTheWrongOneNamed
Judgement frame oracle/frame_table_test.cc FrameTableJudged.*
Judgement frame_point oracle/frame_table_test.cc FrameTableJudged.*
Judgement frame_judged oracle/frame_table_test.cc FrameTableJudged.*
Judgement frame_allowed oracle/frame_table_test.cc FrameTableJudged.*
Judgement frame_unjudged oracle/frame_table_test.cc FrameTableJudged.*
Judgement semantics oracle/judge_fields_test.cc JudgeFields.ASemanticsDifferenceIsAFindingOfItsOwn
Judgement semantics oracle/preempt_case_test.cc PreemptCase.AWrongPredictionIsASemanticsFinding
Observation k -- which instruction of the table: reports only
Observation off oracle/judge_fields_test.cc JudgeFields.AnAcceptanceInPlaceAgreesAndAResumeElsewhereDoesNot
Observation func -- the function holding the point: reports only
Observation func_entry -- that function'"'"'s entry offset: reports only
Observation pos oracle/judge_fields_test.cc JudgeFields.ARefusalIsJudgedByItsReason
Observation ran oracle/judge_fields_test.cc JudgeFields.AFailedRunIsReportedWithItsError
Observation run_error oracle/judge_fields_test.cc JudgeFields.AFailedRunIsReportedWithItsError
Observation trapped oracle/judge_fields_test.cc JudgeFields.NothingIsJudgedWhereTheArmedInstructionWasNotReached
Observation decided oracle/judge_fields_test.cc JudgeFields.NoDecisionIsWrongForPreemptoneOnTheWholeLog
Observation accepted oracle/judge_fields_test.cc JudgeFields.ARefusalIsJudgedByItsReason
Observation not_wanted oracle/judge_fields_test.cc JudgeFields.NotWantedIsRightWhereTheModelWantsNoDecision
Observation asked oracle/judge_fields_test.cc JudgeFields.NotWantedIsRightWhereTheModelWantsNoDecision
Observation pc oracle/judge_fields_test.cc JudgeFields.AnAcceptanceInPlaceAgreesAndAResumeElsewhereDoesNot
Observation resume oracle/judge_fields_test.cc JudgeFields.AnAcceptanceInPlaceAgreesAndAResumeElsewhereDoesNot
Observation op_start oracle/judge_fields_test.cc JudgeFields.ARestartIsJudgedAgainstTheObservedOperationStart
Observation entry oracle/judge_fields_test.cc JudgeFields.ARestartAtEntryIsJudgedAgainstTheObservedEntry
Observation reason oracle/judge_fields_test.cc JudgeFields.ARefusalIsJudgedByItsReason
Observation end oracle/judge_fields_test.cc JudgeFields.TheEndStateIsComparedWithTheBaseline
Observation collections -- counted by the judged sweep (a column), judged by no oracle
Observation objects_freed -- counted by the judged sweep (a column), judged by no oracle
Observation freed_accesses oracle/judge_fields_test.cc JudgeFields.ATouchedFreedObjectIsLost
Observation stack_room oracle/judge_fields_test.cc JudgeFields.TheStackRoomDecidesTheStackRule
Observation events oracle/judge_fields_test.cc JudgeFields.TheEventsAreJudgedByTheProtocol
Observation events_dropped oracle/judge_fields_test.cc JudgeFields.NoDecisionIsWrongForPreemptoneOnTheWholeLog
Observation events_dropped oracle/judge_test.cc Judge.NoRetakeInALogThatFilledIsNotAFinding
Observation source oracle/judge_fields_test.cc JudgeFields.NoDecisionIsWrongForPreemptoneOnTheWholeLog
Observation unseen oracle/judge_fields_test.cc JudgeFields.SysmonIsNotAskedForAGoroutineItCouldNotSee
Observation save oracle/judge_fields_test.cc JudgeFields.TheSaveAreaIsComparedWithTheTrapsRegisters
Observation frame oracle/frame_table_test.cc FrameTableJudged.*
Observation then oracle/judge_fields_test.cc JudgeFields.AChainsFurtherPointsAreJudgedAndTheWrongOneNamed
EndState globals oracle/invisibility_test.cc Invisibility.EachGlobalChangedAloneIsNamed
EndState vdump oracle/invisibility_test.cc Invisibility.EachVectorDumpByteChangedAloneNamesItsChunk
'
# STRUCT HEADER: the structs checked, and where each is declared.
STRUCTS='
Judgement oracle/judge.h
Observation harness/sweep.h
EndState harness/runtime_under_test.h
'

# fields STRUCT HEADER: the data members of `struct STRUCT` in HEADER, one
# a line. Comments are dropped; member functions (a parenthesis before any
# `=`), their bodies, nested braces, static members and type aliases are
# not fields; `a = 0, b = 0` declares two; `(*f)(...)` is a function
# pointer field `f`.
fields() {
  awk -v name="$1" '
    function emit(s,    n, i, c, angle, part, parts, id) {
      gsub(/(public|private|protected)[ \t]*:/, "", s)
      if (s ~ /^[ \t]*(static|using|typedef|friend|enum|template)[ \t]/) return
      if (match(s, /\([ \t]*\*[ \t]*[A-Za-z_][A-Za-z_0-9]*/)) {
        id = substr(s, RSTART, RLENGTH); sub(/^\([ \t]*\*[ \t]*/, "", id); print id; return
      }
      part = s; sub(/=.*/, "", part)
      if (part ~ /\(/) return
      n = 0; parts[0] = ""; angle = 0
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "<") angle++
        if (c == ">") angle--
        if (c == "," && angle == 0) { parts[++n] = ""; continue }
        parts[n] = parts[n] c
      }
      for (i = 0; i <= n; i++) {
        part = parts[i]; sub(/=.*/, "", part); gsub(/\[[^]]*\]/, "", part)
        if (match(part, /[A-Za-z_][A-Za-z_0-9]*[ \t]*$/)) {
          id = substr(part, RSTART, RLENGTH); sub(/[ \t]+$/, "", id); print id
        }
      }
    }
    {
      line = $0; sub(/\/\/.*/, "", line)
      if (!inside) {
        if (line !~ "^[ \t]*struct[ \t]+" name "[ \t]*(final[ \t]*)?\\{") next
        inside = 1; depth = 0; stmt = ""; body = 0
        line = substr(line, index(line, "{"))
      }
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "{") {
          if (depth == 1) { part = stmt; sub(/=.*/, "", part); body = part ~ /\(/ }
          depth++
          continue
        }
        if (c == "}") {
          depth--
          if (depth == 0) { found = 1; exit }
          if (depth == 1 && body) { stmt = ""; body = 0 }
          continue
        }
        if (depth != 1) continue
        if (c == ";") { emit(stmt); stmt = ""; continue }
        stmt = stmt c
      }
      stmt = stmt " "
    }
    END { if (!found) { print "no struct " name > "/dev/stderr"; exit 1 } }
  ' "$2"
}

# check COVERED STRUCTS: 0 when every field of every struct has a row and
# every row names a field and an existing test; else says what is wrong.
check() {
  local covered=$1 structs=$2 bad=0 s h f got rows file test suite
  while read -r s h; do
    [ -n "$s" ] || continue
    if ! got=$(fields "$s" "$h"); then echo "FAIL: no struct $s in $h"; bad=1; continue; fi
    [ -n "$got" ] || { echo "FAIL: no fields read from struct $s in $h"; bad=1; continue; }
    for f in $got; do
      rows=$(awk -v s="$s" -v f="$f" '$1 == s && $2 == f' <<<"$covered")
      [ -n "$rows" ] || { echo "FAIL: $s::$f ($h) has no test that changes it alone: write one and add a row"; bad=1; }
    done
    while read -r _ f file test; do
      grep -qx "$f" <<<"$got" || { echo "FAIL: a row names $s::$f, which $h does not declare"; bad=1; }
      [ "$file" = "--" ] && continue
      if [ ! -f "$file" ]; then
        echo "FAIL: $s::$f: no test file $file (a data dependency of this test?)"; bad=1; continue
      fi
      suite=${test%%.*}
      if [ "${test#*.}" = "*" ]; then
        grep -Eq "^TEST(_F|_P)?\($suite, " "$file" || { echo "FAIL: $s::$f: no test of suite $suite in $file"; bad=1; }
      else
        grep -Eq "^TEST(_F|_P)?\($suite, ${test#*.}\)" "$file" ||
          { echo "FAIL: $s::$f: no test $test in $file"; bad=1; }
      fi
    done < <(awk -v s="$s" '$1 == s' <<<"$covered")
  done <<<"$structs"
  return $bad
}

t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

# The reader, on the forms the headers use.
cat >"$t/s.h" <<'EOF'
struct Other {
  int not_this = 0;
};
struct S {
  bool a = false;          // a comment; with a semicolon
  Expect b{Verdict::kRefuse, Rule::kNone};
  std::map<int, std::string> c;
  size_t d = 0, e = 0,
         f = 0;
  uint8_t g[kMax][kBytes] = {};
  static constexpr size_t kMax = 96, kBytes = 64;
  using Alias = int;
  int (*h)(int locals, bool leaf);
  std::vector<int> i = std::vector<int>(3);
  bool ok() const {
    return a && b.ok();
  }
  std::string Oracle() const;
  struct Inner {
    int not_a_field_of_s;
  } j;
};
EOF
want=$'a\nb\nc\nd\ne\nf\ng\nh\ni\nj'
got=$(fields S "$t/s.h")
[ "$got" = "$want" ] || { echo "FAIL: the reader read struct S as:"; echo "$got"; exit 1; }
echo "reader: the synthetic struct's ten fields, and nothing else"

# A field added without a row is caught, and so is a row for no field.
sed '/^struct Judgement {/a\  int brand_new = 0;' oracle/judge.h >"$t/judge.h"
grep -q brand_new "$t/judge.h" || { echo "FAIL: could not add a field to a copy of judge.h"; exit 1; }
if out=$(check "$COVERED" "Judgement $t/judge.h"); then echo "FAIL: a new field was not caught"; exit 1; fi
grep -q "Judgement::brand_new" <<<"$out" || { echo "FAIL: the new field was not named: $out"; exit 1; }
echo "caught: a field added to Judgement without a test"
if check "$COVERED"$'\nJudgement gone oracle/judge_test.cc Judge.SysmonThatNeverRetookIsAProgressFinding' \
   "Judgement oracle/judge.h" >/dev/null; then echo "FAIL: a row for no field was not caught"; exit 1; fi
echo "caught: a row naming a field Judgement does not declare"
if check "${COVERED/JudgeFields.ATouchedFreedObjectIsLost/JudgeFields.NoSuchTest}" "Judgement oracle/judge.h" \
   >/dev/null; then echo "FAIL: a row naming a missing test was not caught"; exit 1; fi
echo "caught: a row naming a test that does not exist"

# This checkout.
check "$COVERED" "$STRUCTS" || exit 1
n=$(grep -c . <<<"$COVERED")
echo "every field of $(awk 'NF {printf "%s%s", sep, $1; sep=", "}' <<<"$STRUCTS") has a row ($n rows)"
