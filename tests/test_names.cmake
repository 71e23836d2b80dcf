# Fails when a test case's name would not survive doctest_discover_tests: a ';'
# splits the CMake list, and the test registered under the cut name matches
# nothing, so it passes without running (50 did, until renamed).
execute_process(COMMAND "${BINARY}" --list-test-cases --no-intro OUTPUT_VARIABLE names RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BINARY} --list-test-cases exited ${rc}")
endif()
string(FIND "${names}" ";" at)
if(NOT at EQUAL -1)
  string(SUBSTRING "${names}" ${at} 80 rest)
  message(FATAL_ERROR "a test case name holds ';' (ctest would not run it): ...${rest}")
endif()
