# Sourced by the scripts whose checks ci/summarize.py counts as cases
# (ci/readme_test.sh, ci/workflow_steps.sh): a GoogleTest-style test.xml and
# the targets.txt line that names it, as Bazel leaves them for a test.
#
#   cases_init CLASS                  the cases' class (the XML's suite)
#   case_passed NAME SECONDS
#   case_failed NAME SECONDS MESSAGE
#   cases_write XML TARGETS LABEL     the XML, and "LABEL PASSED|FAILED" in TARGETS
# $cases_failed counts the failed ones.

cases_esc() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }

cases_init() { cases_class=$1; cases_xml=(); cases_failed=0; }

case_passed() {
  cases_xml+=("<testcase classname=\"$cases_class\" name=\"$(printf '%s' "$1" | cases_esc)\" time=\"$2\"/>")
}

case_failed() {
  cases_failed=$((cases_failed + 1))
  cases_xml+=("<testcase classname=\"$cases_class\" name=\"$(printf '%s' "$1" | cases_esc)\" time=\"$2\"><failure message=\"$(printf '%s' "$3" | cases_esc)\"/></testcase>")
}

cases_write() {
  mkdir -p "$(dirname "$1")"
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuites><testsuite name=\"$cases_class\" tests=\"${#cases_xml[@]}\" failures=\"$cases_failed\">"
    [ ${#cases_xml[@]} = 0 ] || printf '%s\n' "${cases_xml[@]}"
    echo '</testsuite></testsuites>'
  } >"$1"
  if [ "$cases_failed" = 0 ]; then echo "$3 PASSED"; else echo "$3 FAILED"; fi >"$2"
}
