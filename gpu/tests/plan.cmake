# plan.cmake: the launchers' plans against the kernels they really run (label gpu).
add_executable(test_gpu_plan ${CMAKE_CURRENT_LIST_DIR}/test_gpu_plan.c
  ${CMAKE_CURRENT_LIST_DIR}/gpu_test_util.c)
target_link_libraries(test_gpu_plan PRIVATE q4vk PkgConfig::CHECK m)
add_test(NAME gpu.plan COMMAND test_gpu_plan)
set_tests_properties(gpu.plan PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
