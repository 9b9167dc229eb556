/*
 * envcheck.c - env-check: collect the machine facts a tuning session must
 * freeze and decide whether the required prerequisites are present.
 * Facts come from /proc and /sys (under an optional sysroot), uname, and
 * the external probes in envprobe.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "envcheck_internal.h"
#include "tunectl/buf.h"
#include "tunectl/envcheck.h"
#include "tunectl/fileio.h"
#include "tunectl/timeutil.h"

struct ctx {
	const tc_envcheck_opts *o;
	const char *root;	/* "" or the sysroot without a trailing '/' */
	double timeout;
	tc_json *blockers, *warnings;
};

static void
add_issue(tc_json *list, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
add_issue(tc_json *list, const char *code, const char *fmt, ...)
{
	tc_json *o = tc_json_new_object();
	tc_error e = TC_ERROR_INIT;
	va_list ap;

	va_start(ap, fmt);
	tc_error_vset(&e, fmt, ap);
	va_end(ap);
	tc_json_object_set_string(o, "code", code);
	tc_json_object_set_string(o, "message", tc_error_msg(&e));
	tc_json_array_push(list, o);
	tc_error_clear(&e);
}

/* A small text file under the sysroot, trimmed; NULL when unreadable. */
static char *
read_text(const struct ctx *c, const char *path)
{
	char *full = tc_xasprintf("%s%s", c->root, path);
	char *text = tc_read_file(full, 1 << 20, NULL, NULL);
	size_t len;

	free(full);
	if (text == NULL)
		return NULL;
	len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		text[--len] = '\0';
	return text;
}

static char *
trim(char *s)
{
	size_t len;

	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	return s;
}

/* "key : value" lines (/proc/cpuinfo, /proc/meminfo, npu-smi). */
static char *
field(const char *text, const char *key)
{
	const char *line = text;
	size_t klen = strlen(key);

	while (line != NULL && *line != '\0') {
		const char *nl = strchr(line, '\n');
		size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
		const char *p = line;

		while (p < line + len && isspace((unsigned char)*p))
			p++;
		if ((size_t)(line + len - p) > klen &&
		    strncmp(p, key, klen) == 0) {
			const char *q = p + klen;

			while (q < line + len && (*q == ' ' || *q == '\t'))
				q++;
			if (q < line + len && *q == ':') {
				char *v = tc_xstrndup(q + 1,
				    (size_t)(line + len - q - 1));
				char *t = tc_xstrdup(trim(v));

				free(v);
				return t;
			}
		}
		line = nl != NULL ? nl + 1 : NULL;
	}
	return NULL;
}

static tc_json *
collect_host(const struct ctx *c)
{
	tc_json *h = tc_json_new_object();
	struct utsname u;
	char *osr = read_text(c, "/etc/os-release"), *pretty = NULL;

	if (uname(&u) == 0) {
		tc_json_object_set_string(h, "hostname", u.nodename);
		tc_json_object_set_string(h, "kernel_release", u.release);
		tc_json_object_set_string(h, "kernel_version", u.version);
		tc_json_object_set_string(h, "machine", u.machine);
	}
	if (osr != NULL) {
		char *line = strstr(osr, "PRETTY_NAME=");

		if (line != NULL) {
			char *v = line + strlen("PRETTY_NAME="), *nl;

			if ((nl = strchr(v, '\n')) != NULL)
				*nl = '\0';
			if (*v == '"') {
				v++;
				if (strlen(v) > 0 && v[strlen(v) - 1] == '"')
					v[strlen(v) - 1] = '\0';
			}
			pretty = tc_xstrdup(v);
		}
	}
	tc_json_object_set_string_or_null(h, "os", pretty);
	free(pretty);
	free(osr);
	return h;
}

/* Count CPUs in a list like "0-3,8-11". */
static long
count_cpu_list(const char *list)
{
	long n = 0;
	const char *p = list;

	while (p != NULL && *p != '\0') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += b - a + 1;
		p = *end == ',' ? end + 1 : NULL;
	}
	return n;
}

static tc_json *
collect_cpu(struct ctx *c, tc_json *stable)
{
	tc_json *cpu = tc_json_new_object(), *govs = tc_json_new_object();
	char *info = read_text(c, "/proc/cpuinfo");
	char *model = info != NULL ? field(info, "model name") : NULL;
	char *online = read_text(c, "/sys/devices/system/cpu/online");
	char *smt = read_text(c, "/sys/devices/system/cpu/smt/control");
	char *fmin = read_text(c,
	    "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq");
	char *fmax = read_text(c,
	    "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
	char *driver = read_text(c,
	    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
	long logical = 0, i;
	const char *p;
	size_t k;

	if (model == NULL && info != NULL)
		model = field(info, "Processor");	/* arm64 */
	for (p = info; p != NULL && (p = strstr(p, "processor")) != NULL; p++)
		if (p == info || p[-1] == '\n')
			logical++;
	tc_json_object_set_string_or_null(cpu, "model", model);
	tc_json_object_set_int(cpu, "logical_cpus", logical);
	if (online != NULL)
		tc_json_object_set_int(cpu, "online_cpus",
		    count_cpu_list(online));
	else
		tc_json_object_set_null(cpu, "online_cpus");
	tc_json_object_set_string_or_null(cpu, "smt", smt);
	tc_json_object_set_string_or_null(cpu, "frequency_driver", driver);
	if (fmin != NULL && fmax != NULL) {
		tc_json *f = tc_json_new_object();

		tc_json_object_set_int(f, "min_mhz", atol(fmin) / 1000);
		tc_json_object_set_int(f, "max_mhz", atol(fmax) / 1000);
		tc_json_object_set(cpu, "frequency", f);
	} else {
		tc_json_object_set_null(cpu, "frequency");
	}
	/* Governor per CPU, counted by name. */
	for (i = 0; i < (logical > 0 ? logical : 1) && i < 4096; i++) {
		char *path = tc_xasprintf("/sys/devices/system/cpu/cpu%ld/"
		    "cpufreq/scaling_governor", i);
		char *g = read_text(c, path);
		int64_t n = 0;

		free(path);
		if (g == NULL)
			continue;
		tc_json_int64(tc_json_get(govs, g), &n);
		tc_json_object_set_int(govs, g, n + 1);
		free(g);
	}
	if (govs->u.obj.len == 0) {
		tc_json_free(govs);
		tc_json_object_set_null(cpu, "governors");
		add_issue(c->warnings, "cpu_governor_unknown", "the CPU "
		    "frequency governor cannot be read (no cpufreq in this "
		    "kernel or VM); CPU frequency is not controlled");
		if (c->o->require_governor != NULL)
			add_issue(c->blockers, "cpu_governor_mismatch",
			    "governor '%s' is required but the governor cannot "
			    "be read", c->o->require_governor);
	} else {
		for (k = 0; k < govs->u.obj.len; k++) {
			const char *g = govs->u.obj.members[k].key;

			if (c->o->require_governor != NULL &&
			    strcmp(g, c->o->require_governor) != 0)
				add_issue(c->blockers, "cpu_governor_mismatch",
				    "governor '%s' is required but some CPUs "
				    "use '%s'", c->o->require_governor, g);
			else if (c->o->require_governor == NULL &&
			    strcmp(g, "performance") != 0)
				add_issue(c->warnings,
				    "cpu_governor_not_performance",
				    "some CPUs use the '%s' governor, not "
				    "'performance'", g);
		}
		tc_json_object_set(cpu, "governors", govs);
	}
	tc_json_object_set(stable, "cpu", tc_json_clone(cpu));
	free(info);
	free(model);
	free(online);
	free(smt);
	free(fmin);
	free(fmax);
	free(driver);
	return cpu;
}

static int64_t
meminfo_bytes(const char *info, const char *key)
{
	char *v = field(info, key);
	int64_t kb = v != NULL ? atoll(v) : -1;

	free(v);
	return kb < 0 ? -1 : kb * 1024;
}

static void
set_int_or_null(tc_json *o, const char *key, int64_t v)
{
	if (v >= 0)
		tc_json_object_set_int(o, key, v);
	else
		tc_json_object_set_null(o, key);
}

static tc_json *
collect_memory(const struct ctx *c, tc_json *stable)
{
	tc_json *m = tc_json_new_object();
	char *info = read_text(c, "/proc/meminfo");

	set_int_or_null(m, "total_bytes", info ? meminfo_bytes(info,
	    "MemTotal") : -1);
	set_int_or_null(m, "available_bytes", info ? meminfo_bytes(info,
	    "MemAvailable") : -1);
	set_int_or_null(m, "swap_total_bytes", info ? meminfo_bytes(info,
	    "SwapTotal") : -1);
	tc_json_object_set(stable, "memory_total_bytes",
	    tc_json_clone(tc_json_get(m, "total_bytes")));
	free(info);
	return m;
}

static tc_json *
collect_load(struct ctx *c, const tc_json *cpu)
{
	tc_json *l = tc_json_new_object(), *avg = tc_json_new_array();
	char *text = read_text(c, "/proc/loadavg");
	double a1 = 0, a5 = 0, a15 = 0;
	long running = 0, total = 0;
	int64_t cpus = 0;

	if (text != NULL && sscanf(text, "%lf %lf %lf %ld/%ld", &a1, &a5, &a15,
	    &running, &total) == 5) {
		tc_json_array_push(avg, tc_json_new_float(a1));
		tc_json_array_push(avg, tc_json_new_float(a5));
		tc_json_array_push(avg, tc_json_new_float(a15));
		tc_json_object_set(l, "loadavg", avg);
		tc_json_object_set_int(l, "runnable", running);
		tc_json_object_set_int(l, "threads", total);
		if (!tc_json_int64(tc_json_get(cpu, "online_cpus"), &cpus))
			tc_json_int64(tc_json_get(cpu, "logical_cpus"), &cpus);
		if (cpus > 0 && a1 > 0.25 * (double)cpus)
			add_issue(c->warnings, "system_busy", "the 1-minute "
			    "load average %.2f exceeds a quarter of the %lld "
			    "CPUs: timings will be noisy", a1, (long long)cpus);
	} else {
		tc_json_free(avg);
		tc_json_object_set_null(l, "loadavg");
	}
	free(text);
	return l;
}

/* The next line of *p, malloc'd and without its newline, and *p moved
 * past it; NULL at the end of the text. */
static char *
next_line(const char **p)
{
	const char *nl;
	char *line;

	if (*p == NULL || **p == '\0')
		return NULL;
	nl = strchr(*p, '\n');
	line = tc_xstrndup(*p, nl != NULL ? (size_t)(nl - *p) : strlen(*p));
	*p = nl != NULL ? nl + 1 : NULL;
	return line;
}

static char *
first_line(const char *text)
{
	const char *p = text;
	char *line, *out = NULL;

	while (out == NULL && (line = next_line(&p)) != NULL) {
		char *t = trim(line);

		if (*t != '\0')
			out = tc_xstrdup(t);
		free(line);
	}
	return out;
}

/*
 * The line of "<compiler> --version" that says which version: the first
 * with a dotted number ("gcc (Debian 12.2.0-14) 12.2.0"; nvcc's is its
 * fourth, "Cuda compilation tools, release 13.0, V13.0.88"), else the
 * first line.  NULL when there is no output.
 */
static char *
version_line(const char *text)
{
	for (const char *p = text; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);

		for (size_t i = 1; i + 1 < len; i++)
			if (p[i] == '.' && isdigit((unsigned char)p[i - 1]) &&
			    isdigit((unsigned char)p[i + 1])) {
				char *line = tc_xstrndup(p, len);
				char *out = tc_xstrdup(trim(line));

				free(line);
				return out;
			}
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return first_line(text);
}

static tc_json *
probe_compiler(struct ctx *c, const char *name, bool required)
{
	tc_json *o = tc_json_new_object();
	char *path = tc_envcheck__which(name);

	tc_json_object_set_string(o, "name", name);
	tc_json_object_set_string_or_null(o, "path", path);
	if (path != NULL) {
		char *argv[3] = { path, (char *)"--version", NULL };
		int status;
		char *out = tc_envcheck__capture(argv, c->timeout, &status);
		char *line = status == 0 ? version_line(out) : NULL;

		tc_json_object_set_string_or_null(o, "version", line);
		free(line);
		free(out);
	} else {
		tc_json_object_set_null(o, "version");
		if (required)
			add_issue(c->blockers, "compiler_missing", "compiler "
			    "'%s' is required but was not found in PATH", name);
	}
	tc_json_object_set_bool(o, "required", required);
	free(path);
	return o;
}

static bool
listed(const char *const *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

static tc_json *
collect_compilers(struct ctx *c, tc_json *stable)
{
	static const char *const defaults[] = {
		"cc", "gcc", "g++", "clang", "clang++", "nvcc", "bisheng"
	};
	const tc_envcheck_opts *o = c->o;
	tc_json *list = tc_json_new_array(), *st = tc_json_new_array();
	size_t i;

	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		tc_json_array_push(list, probe_compiler(c, defaults[i],
		    listed(o->require_compilers, o->nrequire_compilers,
		    defaults[i])));
	for (i = 0; i < o->nrequire_compilers; i++)
		if (!listed(defaults, sizeof(defaults) / sizeof(defaults[0]),
		    o->require_compilers[i]) &&
		    !listed(o->require_compilers, i, o->require_compilers[i]))
			tc_json_array_push(list, probe_compiler(c,
			    o->require_compilers[i], true));
	for (i = 0; i < o->nextra_compilers; i++)
		if (!listed(defaults, sizeof(defaults) / sizeof(defaults[0]),
		    o->extra_compilers[i]) &&
		    !listed(o->require_compilers, o->nrequire_compilers,
		    o->extra_compilers[i]) &&
		    !listed(o->extra_compilers, i, o->extra_compilers[i]))
			tc_json_array_push(list, probe_compiler(c,
			    o->extra_compilers[i], false));
	for (i = 0; i < list->u.arr.len; i++) {
		const tc_json *cc = list->u.arr.items[i];
		tc_json *s = tc_json_new_object();

		tc_json_object_set(s, "name", tc_json_clone(tc_json_get(cc,
		    "name")));
		tc_json_object_set(s, "version", tc_json_clone(tc_json_get(cc,
		    "version")));
		tc_json_array_push(st, s);
	}
	tc_json_object_set(stable, "compilers", st);
	return list;
}

/* One CSV cell of nvidia-smi (", " separated, "[N/A]" for unknown). */
static tc_json *
csv_value(const char *cell)
{
	char *end;
	long long v;

	if (*cell == '\0' || cell[0] == '[' || strcmp(cell, "N/A") == 0)
		return tc_json_new_null();
	v = strtoll(cell, &end, 10);
	if (*end == '\0')
		return tc_json_new_int(v);
	return tc_json_new_string(cell);
}

/*
 * The record of a device probe (nvidia-smi, npu-smi): "probe", "path",
 * "devices", "error" and "count".  new_probe() starts it (a tool not in
 * PATH has no devices), probe_ran() adds what the tool reported.
 */
static void
no_devices(tc_json *probe, const char *why)
{
	tc_json_object_set(probe, "devices", tc_json_new_array());
	tc_json_object_set_string(probe, "error", why);
}

static tc_json *
new_probe(const char *tool, const char *path)
{
	tc_json *probe = tc_json_new_object();

	tc_json_object_set_string(probe, "probe", tool);
	tc_json_object_set_string_or_null(probe, "path", path);
	if (path == NULL) {
		char *why = tc_xasprintf("%s not found in PATH", tool);

		no_devices(probe, why);
		free(why);
	}
	return probe;
}

/* devices: what the tool's output parsed to when it exited 0 (taken),
 * else NULL and the error is its first output line or failed. */
static void
probe_ran(tc_json *probe, tc_json *devices, const char *out,
    const char *failed)
{
	if (devices != NULL) {
		tc_json_object_set(probe, "devices", devices);
		tc_json_object_set_null(probe, "error");
	} else {
		char *line = first_line(out);

		no_devices(probe, line != NULL ? line : failed);
		free(line);
	}
}

/* Set "count" from the devices found, and return it. */
static size_t
probe_count(tc_json *probe)
{
	size_t n = tc_json_get(probe, "devices")->u.arr.len;

	tc_json_object_set_int(probe, "count", (int64_t)n);
	return n;
}

/* Why a probe found no device, for a blocker. */
static const char *
probe_why(const tc_json *probe)
{
	const char *e = tc_json_get_string(probe, "error");

	return e != NULL ? e : "no devices";
}

static const char *const gpu_fields[] = {
	"index", "uuid", "name", "driver_version", "memory.total",
	"persistence_mode", "compute_mode", "clocks.max.sm", "clocks.sm",
	"temperature.gpu", "utilization.gpu", "memory.used"
};
#define NGPU_FIELDS (sizeof(gpu_fields) / sizeof(gpu_fields[0]))
/* Fields that belong to the frozen facts (the others vary per run). */
#define NGPU_STABLE 8

static tc_json *
parse_gpus(const char *out, tc_json *stable_devs)
{
	tc_json *devs = tc_json_new_array();
	const char *p = out;
	char *line;

	while ((line = next_line(&p)) != NULL) {
		char *save = NULL, *cell;
		tc_json *d = tc_json_new_object(), *s = tc_json_new_object();
		size_t k = 0;

		for (cell = strtok_r(line, ",", &save); cell != NULL &&
		    k < NGPU_FIELDS; cell = strtok_r(NULL, ",", &save), k++) {
			char key[32];
			size_t j;

			snprintf(key, sizeof(key), "%s", gpu_fields[k]);
			for (j = 0; key[j] != '\0'; j++)
				if (key[j] == '.')
					key[j] = '_';
			tc_json_object_set(d, key, csv_value(trim(cell)));
			if (k < NGPU_STABLE)
				tc_json_object_set(s, key,
				    csv_value(trim(cell)));
		}
		if (k == NGPU_FIELDS) {
			tc_json_array_push(devs, d);
			tc_json_array_push(stable_devs, s);
		} else {
			tc_json_free(d);
			tc_json_free(s);
		}
		free(line);
	}
	return devs;
}

/*
 * The newest CUDA version the driver supports, from the header of
 * "nvidia-smi -q" ("CUDA Version : 13.0"; newer drivers name it "CUDA UMD
 * Version").  NULL when nvidia-smi does not say.
 */
static char *
cuda_driver_version(struct ctx *c, char *smi)
{
	char *argv[3] = { smi, (char *)"-q", NULL };
	int status;
	char *out = tc_envcheck__capture(argv, c->timeout, &status);
	char *v = NULL;

	if (status == 0 && (v = field(out, "CUDA UMD Version")) == NULL)
		v = field(out, "CUDA Version");
	free(out);
	return v;
}

static tc_json *
collect_gpus(struct ctx *c, tc_json *stable)
{
	tc_json *g, *sdevs = tc_json_new_array();
	char *path = tc_envcheck__which("nvidia-smi");
	tc_buf query = TC_BUF_INIT;
	size_t i;

	g = new_probe("nvidia-smi", path);
	if (path != NULL) {
		char *argv[4];
		char *out;
		int status;

		tc_buf_puts(&query, "--query-gpu=");
		for (i = 0; i < NGPU_FIELDS; i++)
			tc_buf_printf(&query, "%s%s", i > 0 ? "," : "",
			    gpu_fields[i]);
		argv[0] = path;
		argv[1] = query.data;
		argv[2] = (char *)"--format=csv,noheader,nounits";
		argv[3] = NULL;
		out = tc_envcheck__capture(argv, c->timeout, &status);
		probe_ran(g, status == 0 ? parse_gpus(out, sdevs) : NULL, out,
		    status == -1000 ? "nvidia-smi did not finish" :
		    "nvidia-smi failed");
		free(out);
	}
	if (probe_count(g) > 0) {
		char *v = cuda_driver_version(c, path);

		tc_json_object_set_string_or_null(g, "cuda_version", v);
		free(v);
	} else {
		tc_json_object_set_null(g, "cuda_version");
		if (c->o->require_gpu)
			add_issue(c->blockers, "gpu_unavailable", "a GPU is "
			    "required but none was found (%s)", probe_why(g));
		else if (path != NULL)
			add_issue(c->warnings, "gpu_probe_failed", "nvidia-smi "
			    "is installed but reported no GPU");
	}
	tc_json_object_set(stable, "gpus", sdevs);
	tc_buf_free(&query);
	free(path);
	return g;
}

/* npu-smi info -l: "NPU ID : N" blocks with "Name", "Chip Count", ... */
static tc_json *
parse_npus(const char *out)
{
	tc_json *devs = tc_json_new_array(), *cur = NULL;
	const char *p = out;
	char *line;

	while ((line = next_line(&p)) != NULL) {
		char *colon = strchr(line, ':');

		if (colon != NULL) {
			char *key, *value;

			*colon = '\0';
			key = trim(line);
			value = trim(colon + 1);
			if (strcmp(key, "NPU ID") == 0) {
				cur = tc_json_new_object();
				tc_json_array_push(devs, cur);
			}
			if (cur != NULL && *key != '\0') {
				char *k2 = tc_xstrdup(key), *q;

				for (q = k2; *q != '\0'; q++)
					*q = *q == ' ' ? '_' :
					    (char)tolower((unsigned char)*q);
				tc_json_object_set(cur, k2, csv_value(value));
				free(k2);
			}
		}
		free(line);
	}
	return devs;
}

static tc_json *
collect_npus(struct ctx *c, tc_json *stable)
{
	char *path = tc_envcheck__which("npu-smi");
	tc_json *n = new_probe("npu-smi", path);

	if (path != NULL) {
		char *argv[4] = { path, (char *)"info", (char *)"-l", NULL };
		int status;
		char *out = tc_envcheck__capture(argv, c->timeout, &status);

		probe_ran(n, status == 0 ? parse_npus(out) : NULL, out,
		    "npu-smi failed");
		free(out);
	}
	if (probe_count(n) == 0 && c->o->require_npu)
		add_issue(c->blockers, "npu_unavailable", "an NPU is required "
		    "but none was found (%s)", probe_why(n));
	tc_json_object_set(stable, "npus", tc_json_clone(tc_json_get(n,
	    "devices")));
	free(path);
	return n;
}

/* Variables that change what a device run does; never secrets. */
static tc_json *
collect_environment(void)
{
	static const char *const names[] = {
		"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
		"CUDA_DEVICE_ORDER", "ASCEND_VISIBLE_DEVICES",
		"ASCEND_RT_VISIBLE_DEVICES", "ASCEND_HOME_PATH",
		"ASCEND_TOOLKIT_HOME", "NPU_STATIC_KERNEL_COMPILE_JOBS",
		"OMP_NUM_THREADS", "MKL_NUM_THREADS", "CC", "CXX", "CFLAGS",
		"CXXFLAGS", "LD_PRELOAD", "SUPERKERNEL_DEVICE_LEASE_HELD",
		"SUPERKERNEL_DEVICE_IDS", "SUPERKERNEL_DEVICE_LEASE_ROOT"
	};
	tc_json *env = tc_json_new_object();
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = getenv(names[i]);

		if (v != NULL)
			tc_json_object_set_string(env, names[i], v);
	}
	return env;
}

tc_json *
tc_envcheck_collect(const tc_envcheck_opts *opts, tc_error *err)
{
	struct ctx c;
	tc_json *r = tc_json_new_object(), *stable = tc_json_new_object();
	tc_json *host, *cpu;
	char ts[TC_TIMESTAMP_LEN + 1], hex[65];
	char *root = NULL;

	memset(&c, 0, sizeof(c));
	c.o = opts;
	if (opts->sysroot != NULL && strcmp(opts->sysroot, "/") != 0) {
		size_t len;

		root = tc_xstrdup(opts->sysroot);
		len = strlen(root);
		while (len > 0 && root[len - 1] == '/')
			root[--len] = '\0';
	}
	c.root = root != NULL ? root : "";
	c.timeout = opts->probe_timeout_s > 0 ? opts->probe_timeout_s : 10;
	c.blockers = tc_json_new_array();
	c.warnings = tc_json_new_array();

	tc_json_object_set_string(r, "schema_version", TC_ENVCHECK_SCHEMA);
	tc_now_iso(ts);
	tc_json_object_set_string(r, "collected_at", ts);
	host = collect_host(&c);
	tc_json_object_set(stable, "kernel_release",
	    tc_json_clone(tc_json_get(host, "kernel_release")));
	tc_json_object_set(stable, "machine",
	    tc_json_clone(tc_json_get(host, "machine")));
	tc_json_object_set(stable, "os", tc_json_clone(tc_json_get(host, "os")));
	tc_json_object_set(r, "host", host);
	cpu = collect_cpu(&c, stable);
	tc_json_object_set(r, "load", collect_load(&c, cpu));
	tc_json_object_set(r, "cpu", cpu);
	tc_json_object_set(r, "memory", collect_memory(&c, stable));
	tc_json_object_set(r, "compilers", collect_compilers(&c, stable));
	tc_json_object_set(r, "gpus", collect_gpus(&c, stable));
	tc_json_object_set(r, "npus", collect_npus(&c, stable));
	tc_json_object_set(r, "environment", collect_environment());
	if (tc_json_digest(stable, hex, err) != 0) {
		tc_json_free(stable);
		tc_json_free(r);
		tc_json_free(c.blockers);
		tc_json_free(c.warnings);
		free(root);
		return NULL;
	}
	tc_json_object_set_string(r, "fingerprint", hex);
	tc_json_object_set_string(r, "status", c.blockers->u.arr.len == 0 ?
	    "ready" : "blocked");
	tc_json_object_set(r, "blockers", c.blockers);
	tc_json_object_set(r, "warnings", c.warnings);
	tc_json_free(stable);
	free(root);
	return r;
}

bool
tc_envcheck_ready(const tc_json *report)
{
	const char *s = tc_json_get_string(report, "status");

	return s != NULL && strcmp(s, "ready") == 0;
}
