# expect_fail.cmake: runs q4cts with one mutated kernel and passes only if q4cts
# exits 1 and reports the case named by the mutation's "expect:" line as failing
# (Fail, or QualityWarning, which --strict fails). "filter:" selects the cases;
# optional "flags:" are added to the command line (e.g. --bounds-check) and an
# optional "message:" must appear in the output. A bug on a path only a small device
# takes is caught by a case of family small_device, which lowers the limits itself.
#   cmake -DQ4CTS=q4cts -DMUT=file.mutation -DSPV=file.spv -P expect_fail.cmake
# -DAPI=webgpu runs it with --api webgpu, SPV then being the mutated WGSL file.
file(READ ${MUT} raw)
string(REPLACE ";" "<semicolon>" raw "${raw}")
string(REPLACE "\n" ";" lines "${raw}")
foreach(line IN LISTS lines)
  if(line MATCHES "^(kernel|filter|expect|flags|message): *(.+)$")
    set(${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT kernel OR NOT filter OR NOT expect)
  message(FATAL_ERROR "${MUT}: needs kernel:, filter: and expect: lines")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
if(API)
  list(PREPEND flags --api ${API})
endif()
execute_process(COMMAND ${Q4CTS} run --strict --kernel ${kernel}=${SPV} --filter ${filter} ${flags}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE errout)
message("${out}${errout}")
if("${out}${errout}" MATCHES "no Vulkan device found")
  return()
endif()
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected q4cts to exit 1 with the mutated ${kernel}; it exited ${rc}")
endif()
string(REPLACE "." "\\." expect_re "${expect}")
if(NOT out MATCHES "(Fail|QualityWarning) +${expect_re}")
  message(FATAL_ERROR "expected ${expect} to be reported as failing")
endif()
if(message AND NOT "${out}" MATCHES "${message}")
  message(FATAL_ERROR "expected the output to say: ${message}")
endif()
