/*
 * equal.c - Python's == between JSON values.
 *
 * bool, int and float compare by numeric value (True == 1 == 1.0), exactly:
 * an integer of any size equals a float only when the float is integral
 * and has the same value (GMP settles the big ones).  Strings compare by
 * their bytes, lists in order, dicts as unordered key sets.
 *
 * NaN: float('nan') == float('nan') is False, so two NaN values at the
 * top level are unequal.  Inside lists and dicts Python compares elements
 * with an identity shortcut first, and json.loads returns the same NaN
 * object for every NaN token, so json.loads('[NaN]') == json.loads('[NaN]')
 * is True; tc_json_equal() follows both rules.
 */
#include <math.h>
#include <string.h>

#include <gmp.h>

#include "json_internal.h"

static bool
is_number(const tc_json *v)
{
	return v->type == TC_JSON_BOOL || v->type == TC_JSON_INT ||
	    v->type == TC_JSON_FLOAT;
}

static const char *
int_text(const tc_json *v)
{
	if (v->type == TC_JSON_BOOL)
		return v->u.b ? "1" : "0";
	return v->u.int_text;
}

/* An integer (decimal text) against a double, exactly. */
static bool
int_equals_double(const char *text, double f)
{
	tc_json tmp;
	int64_t i;
	mpz_t a, b;
	bool eq;

	if (!isfinite(f) || f != trunc(f))
		return false;
	tmp.type = TC_JSON_INT;
	tmp.u.int_text = (char *)(uintptr_t)text;
	if (tc_json_int64(&tmp, &i)) {
		/* f in [-2^63, 2^63) converts exactly. */
		if (f < -9223372036854775808.0 || f >= 9223372036854775808.0)
			return false;
		return (int64_t)f == i;
	}
	if (f >= -9223372036854775808.0 && f < 9223372036854775808.0)
		return false;
	mpz_init_set_str(a, text, 10);
	mpz_init_set_d(b, f);
	eq = mpz_cmp(a, b) == 0;
	mpz_clear(a);
	mpz_clear(b);
	return eq;
}

static bool
numbers_equal(const tc_json *a, const tc_json *b, bool nested)
{
	if (a->type == TC_JSON_FLOAT && b->type == TC_JSON_FLOAT) {
		if (nested && isnan(a->u.f) && isnan(b->u.f))
			return true;
		return a->u.f == b->u.f;
	}
	if (a->type == TC_JSON_FLOAT)
		return int_equals_double(int_text(b), a->u.f);
	if (b->type == TC_JSON_FLOAT)
		return int_equals_double(int_text(a), b->u.f);
	return strcmp(int_text(a), int_text(b)) == 0;
}

static bool
equal(const tc_json *a, const tc_json *b, bool nested)
{
	size_t i;

	if (a == NULL || b == NULL)
		return a == b;
	if (is_number(a) && is_number(b))
		return numbers_equal(a, b, nested);
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case TC_JSON_NULL:
		return true;
	case TC_JSON_STRING:
		return a->u.str.len == b->u.str.len &&
		    memcmp(a->u.str.ptr, b->u.str.ptr, a->u.str.len) == 0;
	case TC_JSON_ARRAY:
		if (a->u.arr.len != b->u.arr.len)
			return false;
		for (i = 0; i < a->u.arr.len; i++)
			if (!equal(a->u.arr.items[i], b->u.arr.items[i], true))
				return false;
		return true;
	case TC_JSON_OBJECT:
		if (a->u.obj.len != b->u.obj.len)
			return false;
		for (i = 0; i < a->u.obj.len; i++) {
			const tc_json_member *ma = &a->u.obj.members[i];
			const tc_json_member *mb = &b->u.obj.members[i];

			/* Both are sorted with unique keys. */
			if (tc_json__keycmp(ma->key, ma->key_len, mb->key,
			    mb->key_len) != 0)
				return false;
			if (!equal(ma->value, mb->value, true))
				return false;
		}
		return true;
	case TC_JSON_BOOL:
	case TC_JSON_INT:
	case TC_JSON_FLOAT:
		break;
	}
	return false;
}

bool
tc_json_equal(const tc_json *a, const tc_json *b)
{
	return equal(a, b, false);
}
