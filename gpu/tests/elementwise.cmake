# elementwise.cmake: GPU tests of fused_ce, adamw_step and q4gsw_requant (label gpu).
# One program; each suite is its own ctest test. Exit 77 = no Vulkan device (skip).
add_executable(test_gpu_elementwise ${CMAKE_CURRENT_LIST_DIR}/test_gpu_elementwise.c
  ${CMAKE_CURRENT_LIST_DIR}/gpu_test_util.c)
target_link_libraries(test_gpu_elementwise PRIVATE q4vk q4ref PkgConfig::CHECK m)
foreach(suite fused_ce adamw requant)
  add_test(NAME gpu.${suite} COMMAND test_gpu_elementwise ${suite})
  set_tests_properties(gpu.${suite} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
