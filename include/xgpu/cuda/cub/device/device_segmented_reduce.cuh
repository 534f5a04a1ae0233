/*
 * cub/device/device_segmented_reduce.cuh - cub is not supported by xgpu:
 * including this header stops the compile with an error that names the including line.
 */
#error "cub is not supported by xgpu"
