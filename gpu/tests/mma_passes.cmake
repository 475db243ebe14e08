# mma_passes.cmake: the tensor-core forward's two passes on any device (label gpu).
# Exit 77 = no Vulkan device (skip).
add_executable(test_gpu_mma_passes ${CMAKE_CURRENT_LIST_DIR}/test_gpu_mma_passes.c
  ${CMAKE_CURRENT_LIST_DIR}/gpu_test_util.c)
target_link_libraries(test_gpu_mma_passes PRIVATE q4vk q4ref PkgConfig::CHECK m)
add_test(NAME gpu.mma_passes COMMAND test_gpu_mma_passes)
set_tests_properties(gpu.mma_passes PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
