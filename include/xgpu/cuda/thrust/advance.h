/*
 * thrust/advance.h - thrust is not supported by xgpu:
 * including this header stops the compile with an error that names the including line.
 */
#error "thrust is not supported by xgpu"
