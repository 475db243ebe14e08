# expect_fail.cmake: runs q4cts with one mutated kernel and passes only if q4cts
# reports Fail (exit status 1) for the case the mutation's header names.
# Header lines of SRC (GLSL comments):
#   // mutation-kernel: <built-in kernel it replaces>
#   // mutation-filter: <glob of the cases to run>
#   // mutation-expect: <a case name that must be reported as Fail>
file(STRINGS ${SRC} header REGEX "^// mutation-")
foreach(line IN LISTS header)
  if(line MATCHES "^// mutation-(kernel|filter|expect): *(.+)$")
    set(${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT kernel OR NOT filter OR NOT expect)
  message(FATAL_ERROR "${SRC}: needs mutation-kernel, mutation-filter and mutation-expect lines")
endif()
execute_process(COMMAND ${Q4CTS} run --kernel ${kernel}=${SPV} --filter ${filter} --strict
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE errout)
message("${out}${errout}")
if(out MATCHES "no Vulkan device found" OR errout MATCHES "no Vulkan device found")
  message("no Vulkan device found")
  return()
endif()
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected q4cts to exit 1 (some case failed) with the mutated ${kernel}; it exited ${rc}")
endif()
string(REPLACE "." "\\." expect_re "${expect}")
if(NOT out MATCHES "Fail +${expect_re}")
  message(FATAL_ERROR "expected a Fail verdict for ${expect}")
endif()
