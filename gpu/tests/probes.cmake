# probes.cmake: GPU tests of the coverage and bounds probes (label gpu): a planted
# out-of-bounds read is reported, correct kernels are not, results stay bit-identical.
add_executable(test_gpu_probes ${CMAKE_CURRENT_LIST_DIR}/test_gpu_probes.c
  ${CMAKE_CURRENT_LIST_DIR}/gpu_test_util.c ${q4vk_test_kernel_sources})
target_link_libraries(test_gpu_probes PRIVATE q4vk q4ref PkgConfig::CHECK m)
add_test(NAME gpu.probes COMMAND test_gpu_probes)
set_tests_properties(gpu.probes PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
