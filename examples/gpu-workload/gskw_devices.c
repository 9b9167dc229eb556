/*
 * gskw_devices.c - which GPU each rank of the workload runs on.
 *
 * tunectl leases GPUs by index (the index nvidia-smi shows, which is the
 * CUDA ordinal in PCI bus order).  A rank process gets exactly one GPU:
 * gskw_rank_main() sets CUDA_VISIBLE_DEVICES to its index before CUDA
 * starts, so the rank sees it as device 0 and cannot touch another.  The
 * indices come from the device lease the process runs under, or from
 * CUDA_VISIBLE_DEVICES when it lists indices.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gskw.h"

/*
 * A comma-separated list of GPU indices ("0", "1,3", " 2 , 5 ") into ids;
 * the number of ids, or -1 when an entry is not a plain index (a UUID,
 * a MIG instance, "-1", empty) or there are too many.
 */
static int
parse_indices(const char *list, int *ids, int max)
{
	const char *p = list;
	int n = 0;

	for (;;) {
		long v = 0;
		int digits = 0;

		while (*p == ' ')
			p++;
		while (isdigit((unsigned char)*p) && digits < 6) {
			v = v * 10 + (*p++ - '0');
			digits++;
		}
		while (*p == ' ')
			p++;
		if (digits == 0 || (*p != ',' && *p != '\0') || n == max)
			return -1;
		for (int i = 0; i < n; i++)
			if (ids[i] == (int)v)
				return -1;
		ids[n++] = (int)v;
		if (*p == '\0')
			return n;
		p++;
	}
}

int
gskw_rank_devices(const char *lease_ids, const char *visible, int ranks,
    int *ids, char *err, size_t errlen)
{
	int n;

	if (lease_ids != NULL) {
		if ((n = parse_indices(lease_ids, ids, GSKW_MAX_GPUS)) < 0)
			return gskw_errf(err, errlen, "SUPERKERNEL_DEVICE_IDS '%s' is "
			    "not a list of GPU indices", lease_ids);
		if (n < ranks)
			return gskw_errf(err, errlen, "%d ranks need %d GPUs, one each, "
			    "but the device lease holds %d (%s)", ranks, ranks, n,
			    lease_ids);
		return n;
	}
	if (visible != NULL) {
		if ((n = parse_indices(visible, ids, GSKW_MAX_GPUS)) < 0)
			return gskw_errf(err, errlen, "CUDA_VISIBLE_DEVICES '%s' does "
			    "not list GPU indices; give each rank a GPU by index "
			    "(a device lease, or CUDA_VISIBLE_DEVICES=0,1,...)",
			    visible);
		if (n < ranks)
			return gskw_errf(err, errlen, "%d ranks need %d GPUs, one each, "
			    "but CUDA_VISIBLE_DEVICES lists %d (%s)", ranks, ranks,
			    n, visible);
		return n;
	}
	for (n = 0; n < ranks; n++)
		ids[n] = n;
	return n;
}

int
gskw_physical_index(const char *visible, int k, char *err, size_t errlen)
{
	int ids[GSKW_MAX_GPUS], n;

	if (visible == NULL)
		return k;
	if ((n = parse_indices(visible, ids, GSKW_MAX_GPUS)) < 0)
		return gskw_errf(err, errlen, "CUDA_VISIBLE_DEVICES '%s' does not "
		    "list GPU indices (UUIDs and MIG instances cannot be leased "
		    "by index)", visible);
	if (k < 0 || k >= n)
		return gskw_errf(err, errlen, "CUDA device %d is not among the %d "
		    "that CUDA_VISIBLE_DEVICES '%s' lists", k, n, visible);
	return ids[k];
}
