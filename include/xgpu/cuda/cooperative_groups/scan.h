/* cooperative_groups/scan.h - cg::inclusive_scan and exclusive_scan (in reduce.h). */
#include "reduce.h"
