/*
 * decimal.h - the slice of Python's decimal module the measurement gates
 * need, on GMP: finite numbers (sign, integer coefficient, exponent) in
 * the default context (28 significant digits, ROUND_HALF_EVEN).
 *
 *   construction      exact, like Decimal("9.70") (exponent -2 is kept)
 *   add / sub / mul   exact result rounded to 28 digits, ideal exponent
 *   div               Python's algorithm: an exact quotient takes the
 *                     exponent closest to the ideal one (97.50/10 -> 9.75,
 *                     100.00/10 -> 10.00); otherwise 28 digits, half-even
 *   str               str(Decimal): plain unless exponent > 0 or the
 *                     adjusted exponent < -6 ("1E-7", "1E+1", "0E-7")
 *   to_double         float(Decimal), correctly rounded
 *
 * Infinities and NaNs are not represented: parsing them fails.  The
 * context's Emin/Emax clamping is not modelled (the gates never get near
 * exponents of +-999999).
 */
#ifndef TUNECTL_DECIMAL_H
#define TUNECTL_DECIMAL_H

#include <gmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "tunectl/buf.h"

#define TC_DEC_PREC 28

typedef struct tc_dec {
	int sign;	/* 0 positive (including +0), 1 negative */
	mpz_t coef;	/* >= 0 */
	long exp;
} tc_dec;

void tc_dec_init(tc_dec *d);			/* +0, exponent 0 */
void tc_dec_clear(tc_dec *d);
void tc_dec_set(tc_dec *dst, const tc_dec *src);
void tc_dec_set_long(tc_dec *d, long v);	/* exponent 0 */

/* Decimal(text): [sign] digits [. digits] [e|E [sign] digits], with at
 * least one digit; surrounding whitespace and "_" separators are not
 * accepted.  Returns false (d unchanged) on anything else, including
 * "Infinity"/"NaN" (not representable here). */
bool tc_dec_parse(tc_dec *d, const char *s, size_t len);

/* Exact Decimal of a finite double via its shortest repr, as
 * Decimal(str(x)) does.  Returns false for inf/nan. */
bool tc_dec_from_double_repr(tc_dec *d, double x);

/* r = a op b in the default context.  r may alias a or b. */
void tc_dec_add(tc_dec *r, const tc_dec *a, const tc_dec *b);
void tc_dec_sub(tc_dec *r, const tc_dec *a, const tc_dec *b);
void tc_dec_mul(tc_dec *r, const tc_dec *a, const tc_dec *b);
/* Returns false (r unchanged) when b is zero (DivisionByZero /
 * DivisionUndefined in Python). */
bool tc_dec_div(tc_dec *r, const tc_dec *a, const tc_dec *b);

/* Numeric comparison (-1, 0, 1); 0.50 == 0.5. */
int tc_dec_cmp(const tc_dec *a, const tc_dec *b);
bool tc_dec_is_zero(const tc_dec *d);

/* Round an exact value to the context (28 digits, half-even). */
void tc_dec_round_context(tc_dec *d);

/* str(Decimal) appended to out / malloc'd. */
void tc_dec_str(tc_buf *out, const tc_dec *d);
char *tc_dec_to_string(const tc_dec *d);

/* float(Decimal), correctly rounded (overflow gives +-inf). */
double tc_dec_to_double(const tc_dec *d);

/*
 * Correct rounding of an exact binary quantity to binary64, shared by the
 * statistics: the nearest double (ties to even, subnormals and overflow
 * handled) to (num / den) * 2^exp2, num >= 0 and den > 0.
 */
double tc_mpz_ratio_to_double(const mpz_t num, const mpz_t den, long exp2);
/* The same for sqrt((num / den) * 2^exp2), correctly rounded. */
double tc_mpz_ratio_sqrt_to_double(const mpz_t num, const mpz_t den,
    long exp2);

#endif
