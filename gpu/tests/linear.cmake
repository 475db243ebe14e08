# linear.cmake: GPU tests of dequantize, linear_q4gsw, linear_q4gsw_backward and
# linear_dW (label gpu). Exit 77 = no Vulkan device (skip).
add_executable(test_gpu_linear ${CMAKE_CURRENT_LIST_DIR}/test_gpu_linear.c
  ${CMAKE_CURRENT_LIST_DIR}/gpu_test_util.c)
target_link_libraries(test_gpu_linear PRIVATE q4vk q4ref PkgConfig::CHECK m)
add_test(NAME gpu.linear COMMAND test_gpu_linear)
set_tests_properties(gpu.linear PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
