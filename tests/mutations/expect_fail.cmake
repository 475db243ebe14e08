# expect_fail.cmake: runs q4cts with one mutated kernel and passes only if q4cts
# exits 1 and reports the case named by the mutation's "expect:" line as failing
# (Fail, or QualityWarning, which --strict fails). "filter:" selects the cases;
# optional "flags:" are added to the command line (e.g. --bounds-check) and an
# optional "message:" must appear in the output; an optional "limits:" line runs
# them with the device limits lowered for tests
# (Q4CTS_TEST_LIMITS, docs/ENGINEERING.md), for bugs on paths only a small device takes;
# an optional "env: NAME=VALUE" sets one variable for the run (the WebGPU knobs of
# docs/webgpu.md, "Linear kernels": large-shape variants on small shapes).
# With -DINTERFACE=file.json (a mutant of tests/interfaces/) the mutant runs through
# that interface file instead of `--kernel`.
#   cmake -DQ4CTS=q4cts -DMUT=file.mutation -DSPV=file.spv -P expect_fail.cmake
#   cmake -DQ4CTS=q4cts -DMUT=file.mutation -DINTERFACE=file.json -P expect_fail.cmake
# -DAPI=webgpu runs it with --api webgpu, SPV then being the mutated WGSL file.
# A mutation of several kernels runs them together: -DKERNELS=NAME=FILE,NAME=FILE,...
# instead of SPV (apply_mutation.cmake).
file(READ ${MUT} raw)
string(REPLACE ";" "<semicolon>" raw "${raw}")
string(REPLACE "\n" ";" lines "${raw}")
foreach(line IN LISTS lines)
  if(line MATCHES "^(kernel|filter|expect|flags|message|limits|env): *(.+)$")
    set(${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT kernel OR NOT filter OR NOT expect)
  message(FATAL_ERROR "${MUT}: needs kernel:, filter: and expect: lines")
endif()
if(limits)
  set(ENV{Q4CTS_TEST_LIMITS} "${limits}")
endif()
# "env: NAME=VALUE": one variable for the run (a WebGPU worker's test knob).
if(env MATCHES "^([A-Z0-9_]+)=(.*)$")
  set(ENV{${CMAKE_MATCH_1}} "${CMAKE_MATCH_2}")
elseif(env)
  message(FATAL_ERROR "${MUT}: env: wants NAME=VALUE, not '${env}'")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
if(API)
  list(PREPEND flags --api ${API})
endif()
if(INTERFACE)
  set(module_args --interface ${INTERFACE})
elseif(KERNELS)
  string(REPLACE "," ";" pairs "${KERNELS}")
  set(module_args "")
  foreach(pair IN LISTS pairs)
    list(APPEND module_args --kernel ${pair})
  endforeach()
  set(kernel "${KERNELS}")
else()
  set(module_args --kernel ${kernel}=${SPV})
endif()
execute_process(COMMAND ${Q4CTS} run --strict ${module_args} --filter ${filter} ${flags}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE errout)
message("${out}${errout}")
if("${out}${errout}" MATCHES "no Vulkan device found")
  return()
endif()
# A mutant of the tensor-core path on a device without int8 cooperative matrices
# (lavapipe): nothing to run it on. ctest shows it as skipped (tests/CMakeLists.txt);
# the H200 runs these (docs/perf.md).
if("${out}${errout}" MATCHES "int8 cooperative matrices; this device has none")
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
