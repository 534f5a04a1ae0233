/*
 * cub/block/block_load.cuh - cub is not supported by xgpu:
 * including this header stops the compile with an error that names the including line.
 */
#error "cub is not supported by xgpu"
