/*
 * envjson.c - the explicit environment a lease command may be given
 * (--environment-json): a JSON object of plain variable names to string
 * values, refusing names that look like they carry secrets, so that no
 * credential is handed to a device command through a recorded file.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/lease.h"

/* Substrings that make a name look like a secret (case-insensitive). */
static const char *const secret_words[] = {
	"TOKEN", "PASSWORD", "PASSWD", "SECRET", "PRIVATE", "CREDENTIAL",
	"API_KEY", "ACCESS_KEY", "AUTHORIZATION", "COOKIE", NULL
};

static bool
name_valid(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!(c < 0x80 && (isalnum(c) || c == '_')))
			return false;
	}
	return true;
}

static bool
name_is_secret(const char *name)
{
	const char *const *w;
	char *upper = tc_xstrdup(name);
	bool hit = false;
	size_t i;

	for (i = 0; upper[i] != '\0'; i++)
		upper[i] = (char)toupper((unsigned char)upper[i]);
	for (w = secret_words; *w != NULL && !hit; w++)
		hit = strstr(upper, *w) != NULL;
	free(upper);
	return hit;
}

static void
set_name_error(tc_error *err, const char *what, const char *name, size_t len)
{
	tc_buf q = TC_BUF_INIT;

	tc_json_repr_string(&q, name, len);
	tc_error_set(err, "%s: %s", what, tc_buf_cstr(&q));
	tc_buf_free(&q);
}

char **
tc_lease_env_from_json(const tc_json *doc, tc_error *err)
{
	char **envp;
	size_t i, n;

	if (!tc_json_is(doc, TC_JSON_OBJECT)) {
		tc_error_set(err, "command environment must be a JSON object");
		return NULL;
	}
	n = doc->u.obj.len;
	for (i = 0; i < n; i++) {
		const tc_json_member *m = &doc->u.obj.members[i];
		const tc_json *v = m->value;

		if (!name_valid(m->key, m->key_len)) {
			set_name_error(err, "command environment variable name "
			    "is invalid", m->key, m->key_len);
			return NULL;
		}
		if (name_is_secret(m->key)) {
			set_name_error(err, "command environment variable looks "
			    "like a secret and is refused", m->key, m->key_len);
			return NULL;
		}
		if (!tc_json_is(v, TC_JSON_STRING) ||
		    memchr(v->u.str.ptr, '\0', v->u.str.len) != NULL ||
		    tc_json_has_surrogate(v->u.str.ptr, v->u.str.len)) {
			set_name_error(err, "command environment value must be "
			    "a string without NUL", m->key, m->key_len);
			return NULL;
		}
	}
	/* Members are kept sorted by key: the result is sorted by name. */
	envp = tc_xcalloc(n + 1, sizeof(*envp));
	for (i = 0; i < n; i++) {
		const tc_json_member *m = &doc->u.obj.members[i];

		envp[i] = tc_xasprintf("%s=%s", m->key, m->value->u.str.ptr);
	}
	envp[n] = NULL;
	return envp;
}
