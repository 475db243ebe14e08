# race.cmake: GPU tests of the race probes (label gpu): a racy and a race-free small
# kernel for read-after-write, write-after-read, write-after-write, atomics and
# uninitialized shared memory, each run ten times (docs/race-check.md).
add_executable(test_gpu_race ${CMAKE_CURRENT_LIST_DIR}/test_gpu_race.c
  ${CMAKE_CURRENT_LIST_DIR}/gpu_test_util.c ${q4vk_test_kernel_sources})
target_link_libraries(test_gpu_race PRIVATE q4vk q4ref PkgConfig::CHECK m)
add_test(NAME gpu.race COMMAND test_gpu_race)
set_tests_properties(gpu.race PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
# The control of the slice mutants (tests/mutations/slice_*_not_cleared): the
# tensor-core forward's passes with the race probes on report nothing.
add_test(NAME gpu.mma_passes_race
  COMMAND ${CMAKE_COMMAND} -E env Q4_TEST_RACE_CHECK=1 $<TARGET_FILE:test_gpu_mma_passes>)
set_tests_properties(gpu.mma_passes_race PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
