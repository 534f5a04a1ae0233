/*
 * hosttab.c - registration of the host-side tables (xgpu_atoms, xgpu_ldesc).
 *
 * xgpu-cc's host pass gives every annotated translation unit a constructor that calls
 * __xgpu_register_host with the linker's __start_/__stop_ bounds of both sections. All
 * translation units of one linked image pass the same bounds, so a section already
 * registered is ignored; a shared library with annotations of its own registers its own
 * sections, whose records follow (in registration order) those registered before. An
 * absent section arrives as a null or empty range. Registration happens before main
 * and needs no device: the tables are plain host data.
 */
#include "rt.h"

/* Which registered section holds p: its index, or -1. */
int rt_hostsec_of(const RtHostSec *secs, int n, const void *p)
{
    const uint8_t *b = p;
    for (int i = 0; i < n; i++)
        if (b >= secs[i].begin && b < secs[i].end)
            return i;
    return -1;
}

int rt_hostsec_known(const RtHostSec *secs, int n, const void *begin)
{
    for (int i = 0; i < n; i++)
        if (secs[i].begin == begin)
            return 1;
    return 0;
}

void __xgpu_register_host(const void *atoms_begin, const void *atoms_end,
                          const void *ldesc_begin, const void *ldesc_end)
{
    RT_ENTER(c);
    if (atoms_begin && (const uint8_t *)atoms_end > (const uint8_t *)atoms_begin)
        rt_xmem_register(c, atoms_begin, atoms_end);
    if (ldesc_begin && (const uint8_t *)ldesc_end > (const uint8_t *)ldesc_begin)
        rt_ldesc_register(c, ldesc_begin, ldesc_end);
}
