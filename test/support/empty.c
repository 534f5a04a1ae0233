/* Keeps the support library non-empty. */
typedef int xgpu_test_support_empty;
