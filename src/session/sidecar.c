/*
 * sidecar.c - the sidecar of a reference-policy session: where tunectl
 * keeps what it binds beyond the reference's formats (the artifact
 * manifest of every step it seals, the files it quarantined), so that
 * the artifact root holds exactly the files the reference writes and the
 * session document is the reference's, byte for byte.
 *
 * The sidecar is one JSON document outside the artifact root:
 *   <state>/sidecars/<sha256 of the session's resolved path>.json
 * <state> is $TUNECTL_STATE_DIR, else $XDG_STATE_HOME/tunectl, else
 * $HOME/.local/state/tunectl.  It holds a chain of records: each names
 * its position ("seq"), the digest of the record before it
 * ("prev_sha256", tc_json_digest of that record; null for the first),
 * the session it belongs to (session_id, created_at) and the digest of
 * the session file written with it ("session_sha256").
 *
 * A seal writes its record twice, both times before the session: first
 * as the intent (the step's manifest, the session state it seals over;
 * session_sha256 null), then complete (every manifest the seal binds,
 * short-circuited steps included, and the digest of the session about to
 * be written).  A record whose step the session still shows pending is
 * an interrupted seal: only the last record may be one, and the next
 * seal or resume replaces it.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tunectl/timeutil.h"

/* What the session says of the step a record seals: sealed with the
 * result the record binds (committed; also a record that seals no step),
 * not sealed (pending: an interrupted seal, or a rollback), or sealed
 * with another result (mismatch); REC_OTHER: not a seal record. */
enum rec_state { REC_COMMITTED, REC_PENDING, REC_MISMATCH, REC_OTHER };

/* The state of every record, worked out once for the session as the
 * snapshot describes it (each step's id, whether it is sealed, its
 * result_sha256) and reused while the session still reads the same.
 * A command asks for it on every manifest it loads (verify: 21 times);
 * the records themselves are read and chain-checked once, when the
 * sidecar is read, and any change to them (writable()) drops it. */
struct rec_memo {
	size_t nrecords;	/* how many records the states are for */
	unsigned char *states;	/* enum rec_state per record */
	size_t nsteps;
	char **ids;		/* the session's step ids, in order */
	bool *sealed;
	tc_json **digests;	/* each step's result_sha256 (clone; NULL:
				 * absent) */
	/* Where each step kept step_id, state and result_sha256 among its
	 * members (SIZE_MAX: absent): memo_fresh() looks there first. */
	size_t (*at)[3];
	/* Each step's manifest as manifest_in() finds it for its id, once
	 * asked (manifest_done); the records do not change while the memo
	 * lives. */
	const tc_json **manifests;
	bool *manifest_done;
};

struct tc_sidecar {
	char *path;	/* where it is or would be; NULL: no state directory */
	tc_json *doc;	/* the document (read or new); NULL while absent */
	bool foreign;	/* present, but another session's (or unreadable) */
	char *problem;	/* why the chain does not hold; NULL when it does */
	struct rec_memo *memo;	/* NULL until asked for, or after a change */
};

char *
tc_sidecar_path(const char *session_path)
{
	return tc_state_file_of("sidecars", session_path);
}

static void
memo_free(struct rec_memo *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nsteps; i++) {
		free(m->ids[i]);
		tc_json_free(m->digests[i]);
	}
	free(m->ids);
	free(m->sealed);
	free(m->digests);
	free(m->at);
	free(m->manifests);
	free(m->manifest_done);
	free(m->states);
	free(m);
}

void
tc_sidecar_free(tc_sidecar *sc)
{
	if (sc == NULL)
		return;
	memo_free(sc->memo);
	free(sc->path);
	tc_json_free(sc->doc);
	free(sc->problem);
	free(sc);
}

static tc_json *
records_of(const tc_sidecar *sc)
{
	tc_json *r = sc->doc != NULL ? tc_json_get(sc->doc, "records") : NULL;

	return tc_json_is(r, TC_JSON_ARRAY) ? r : NULL;
}

/* Is the record one of this session's (its first record decides)? */
static bool
same_session(const tc_json *record, const tc_json *session)
{
	return tc_session__field_equal(record, session, "session_id") &&
	    tc_session__field_equal(record, session, "created_at");
}

/* The chain: seq, prev_sha256, schema; NULL or the problem.  digests:
 * each record's, as the read took them ("" or missing: digest the
 * record here). */
static char *
chain_problem(const tc_json *records, const tc_json_item_digests *digests)
{
	char prev[65] = "";
	size_t i;

	for (i = 0; i < records->u.arr.len; i++) {
		const tc_json *r = records->u.arr.items[i];
		const tc_json *link = tc_json_get(r, "prev_sha256");
		int64_t seq;

		if (!tc_json_is(r, TC_JSON_OBJECT) ||
		    !tc_json_int64(tc_json_get(r, "seq"), &seq) ||
		    seq != (int64_t)i)
			return tc_xasprintf("record %zu is out of sequence", i);
		if (i == 0 ? !tc_json_is(link, TC_JSON_NULL) :
		    !sess_str_is(link, prev))
			return tc_xasprintf("record %zu does not chain to the "
			    "record before it", i);
		if (digests->n == records->u.arr.len &&
		    digests->hex[i][0] != '\0')
			memcpy(prev, digests->hex[i], sizeof(prev));
		else if (tc_json_digest(r, prev, NULL) != 0)
			return tc_xasprintf("record %zu cannot be digested", i);
	}
	return NULL;
}

static tc_sidecar *
sidecar_read(const tc_session *s)
{
	tc_sidecar *sc = tc_xcalloc(1, sizeof(*sc));
	tc_error err = TC_ERROR_INIT;
	const tc_json *session = s->doc;
	tc_json_item_digests digests;
	tc_json *records;

	/* tc_sidecar_path(), from the resolution the load kept */
	sc->path = s->resolved != NULL ? tc_state_file("sidecars",
	    s->resolved) : tc_sidecar_path(s->path);
	if (sc->path == NULL ||
	    !tc_path_exists(sc->path))
		return sc;
	/* The chain's digests come from the read (the records' canonical
	 * text as the parse meets it), not from writing each record out. */
	if ((sc->doc = tc_json_parse_file_items_digest(sc->path, "records",
	    &digests, &err)) == NULL) {
		sc->problem = tc_xasprintf("cannot read the session's sidecar: "
		    "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return sc;
	}
	records = records_of(sc);
	if (records == NULL || !sess_str_is(tc_json_get(sc->doc,
	    "schema_version"), TC_SIDECAR_SCHEMA)) {
		sc->problem = tc_xasprintf("sidecar %s is not a %s document",
		    sc->path, TC_SIDECAR_SCHEMA);
	} else if (records->u.arr.len == 0 ||
	    !same_session(records->u.arr.items[0], session)) {
		sc->foreign = true;
	} else if ((sc->problem = chain_problem(records, &digests)) != NULL) {
		char *why = sc->problem;

		sc->problem = tc_xasprintf("sidecar chain broken: %s: %s",
		    why, sc->path);
		free(why);
	}
	tc_json_item_digests_free(&digests);
	return sc;
}

const tc_sidecar *
tc_session_sidecar(const tc_session *s)
{
	/* A cache on a session the caller holds const: loading it changes
	 * nothing the session says. */
	tc_session *m = (tc_session *)s;

	if (m->sidecar == NULL)
		m->sidecar = sidecar_read(s);
	return m->sidecar;
}

const char *
tc_sidecar_where(const tc_sidecar *sc)
{
	return sc->path;
}

bool
tc_sidecar_present(const tc_sidecar *sc)
{
	return sc->doc != NULL && !sc->foreign;
}

const char *
tc_sidecar_problem(const tc_sidecar *sc)
{
	return sc->foreign ? NULL : sc->problem;
}

/* The manifest of the step a seal record seals (NULL when none). */
static const tc_json *
first_manifest(const tc_json *record)
{
	const tc_json *ms = tc_json_get(record, "manifests");

	return tc_json_is(ms, TC_JSON_ARRAY) && ms->u.arr.len > 0 ?
	    ms->u.arr.items[0] : NULL;
}

static enum rec_state
record_state(const tc_session *s, const tc_json *record)
{
	const tc_json *m = first_manifest(record), *step;
	const char *id = tc_json_get_string(m, "step_id");

	if (!sess_str_is(tc_json_get(record, "kind"), "seal"))
		return REC_OTHER;
	if (m == NULL)
		return REC_COMMITTED;
	step = id != NULL ? tc_session_find_step(s, id, NULL) : NULL;
	if (step == NULL || !tc_step_is_sealed(step))
		return REC_PENDING;
	return tc_session__field_equal(m, step, "result_sha256") ?
	    REC_COMMITTED : REC_MISMATCH;
}

#define KEY_IS(m, lit) ((m)->key_len == sizeof(lit) - 1 && \
	memcmp((m)->key, lit, sizeof(lit) - 1) == 0)

/* A step's step_id (as tc_step_id() reads it: NULL unless a string),
 * whether it is sealed, and its result_sha256 (NULL when absent): one
 * pass over its members, whose keys are unique.  at[] gets where each of
 * the three was (SIZE_MAX: absent). */
static void
step_fields(const tc_json *step, const char **id, bool *sealed,
    const tc_json **digest, size_t at[3])
{
	size_t i;

	*id = NULL;
	*sealed = false;
	*digest = NULL;
	at[0] = at[1] = at[2] = SIZE_MAX;
	if (!tc_json_is(step, TC_JSON_OBJECT))
		return;
	for (i = 0; i < step->u.obj.len; i++) {
		const tc_json_member *m = &step->u.obj.members[i];

		if (KEY_IS(m, "step_id")) {
			*id = tc_json_string(m->value);
			at[0] = i;
		} else if (KEY_IS(m, "state")) {
			*sealed = sess_str_is(m->value, "sealed");
			at[1] = i;
		} else if (KEY_IS(m, "result_sha256")) {
			*digest = m->value;
			at[2] = i;
		}
	}
}

/* step_fields(), looking first where the memo saw the three members: a
 * step that still has all three there (keys are unique, so those are
 * they) is read without a pass over its members. */
static void
step_fields_at(const tc_json *step, const size_t was[3], const char **id,
    bool *sealed, const tc_json **digest)
{
	const tc_json_member *m;
	size_t at[3];

	if (tc_json_is(step, TC_JSON_OBJECT) && was[0] < step->u.obj.len &&
	    was[1] < step->u.obj.len && was[2] < step->u.obj.len &&
	    KEY_IS(&step->u.obj.members[was[0]], "step_id") &&
	    KEY_IS(&step->u.obj.members[was[1]], "state") &&
	    KEY_IS(&step->u.obj.members[was[2]], "result_sha256")) {
		m = step->u.obj.members;
		*id = tc_json_string(m[was[0]].value);
		*sealed = sess_str_is(m[was[1]].value, "sealed");
		*digest = m[was[2]].value;
		return;
	}
	step_fields(step, id, sealed, digest, at);
}

/* Does the memo still describe the session's steps?  (Everything
 * record_state() reads of the session: ids, sealed, result_sha256.) */
static bool
memo_fresh(const struct rec_memo *m, const tc_session *s, size_t nrecords)
{
	size_t i;

	if (m == NULL || m->nrecords != nrecords ||
	    m->nsteps != s->steps->u.arr.len)
		return false;
	for (i = 0; i < m->nsteps; i++) {
		const tc_json *d;
		const char *id;
		bool sealed;

		step_fields_at(s->steps->u.arr.items[i], m->at[i], &id,
		    &sealed, &d);
		if (id == NULL || m->ids[i] == NULL ||
		    strcmp(id, m->ids[i]) != 0 || sealed != m->sealed[i] ||
		    (d == NULL) != (m->digests[i] == NULL) ||
		    (d != NULL && !tc_json_equal(d, m->digests[i])))
			return false;
	}
	return true;
}

/* The state of each record of a present sidecar (*out gets the records),
 * for the session as it reads now; NULL when it has no records. */
static const unsigned char *
record_states(const tc_session *s, const tc_sidecar *sc,
    const tc_json **out)
{
	const tc_json *records = tc_sidecar_present(sc) ? records_of(sc) : NULL;
	tc_sidecar *w = (tc_sidecar *)sc;	/* the memo is scratch */
	struct rec_memo *m;
	size_t i, n;

	*out = records;
	if (records == NULL || records->u.arr.len == 0)
		return NULL;
	if (memo_fresh(sc->memo, s, records->u.arr.len))
		return sc->memo->states;
	memo_free(w->memo);
	m = w->memo = tc_xcalloc(1, sizeof(*m));
	m->nrecords = records->u.arr.len;
	m->states = tc_xcalloc(m->nrecords, 1);
	for (i = 0; i < m->nrecords; i++)
		m->states[i] = (unsigned char)record_state(s,
		    records->u.arr.items[i]);
	n = m->nsteps = s->steps->u.arr.len;
	m->ids = tc_xcalloc(n + 1, sizeof(*m->ids));
	m->sealed = tc_xcalloc(n + 1, sizeof(*m->sealed));
	m->digests = tc_xcalloc(n + 1, sizeof(*m->digests));
	m->at = tc_xcalloc(n + 1, sizeof(*m->at));
	m->manifests = tc_xcalloc(n + 1, sizeof(*m->manifests));
	m->manifest_done = tc_xcalloc(n + 1, sizeof(*m->manifest_done));
	for (i = 0; i < n; i++) {
		const tc_json *d;
		const char *id;

		step_fields(s->steps->u.arr.items[i], &id, &m->sealed[i], &d,
		    m->at[i]);
		m->ids[i] = id != NULL ? tc_xstrdup(id) : NULL;
		m->digests[i] = d != NULL ? tc_json_clone(d) : NULL;
	}
	return m->states;
}

/* A seal record the session does not show (uncached: writers ask this
 * of the last record while they change the records). */
static bool
record_pending(const tc_session *s, const tc_json *record)
{
	return record_state(s, record) == REC_PENDING;
}

/* The newest committed record's manifest of step_id (NULL when none). */
static const tc_json *
manifest_in(const unsigned char *states, const tc_json *records,
    const char *step_id)
{
	size_t i, j;

	for (i = states != NULL ? records->u.arr.len : 0; i-- > 0;) {
		const tc_json *ms;

		if (states[i] != REC_COMMITTED || !tc_json_is(ms = tc_json_get(
		    records->u.arr.items[i], "manifests"), TC_JSON_ARRAY))
			continue;
		for (j = 0; j < ms->u.arr.len; j++)
			if (sess_str_is(tc_json_get(ms->u.arr.items[j], "step_id"),
			    step_id))
				return ms->u.arr.items[j];
	}
	return NULL;
}

const tc_json *
tc_sidecar_manifest(const tc_session *s, const char *step_id)
{
	const tc_json *records;
	const unsigned char *states = record_states(s, tc_session_sidecar(s),
	    &records);

	return states != NULL ? manifest_in(states, records, step_id) : NULL;
}

const tc_json *
tc_sidecar_intent(const tc_session *s)
{
	const tc_sidecar *sc = tc_session_sidecar(s);
	const tc_json *records;
	const unsigned char *states = record_states(s, sc, &records);
	size_t n;

	if (states == NULL || records == NULL)
		return NULL;
	n = records->u.arr.len;
	return states[n - 1] == REC_PENDING ?
	    first_manifest(records->u.arr.items[n - 1]) : NULL;
}

/* tc_sidecar_check(), *states and *records getting what it checked
 * (NULL when the sidecar has no records). */
static int
check(const tc_session *s, const unsigned char **states,
    const tc_json **records, tc_error *err)
{
	const tc_sidecar *sc = tc_session_sidecar(s);
	size_t i, n;

	*states = NULL;
	*records = NULL;
	/* a sidecar that is there but cannot be read is not "none" */
	if (!sc->foreign && sc->problem != NULL) {
		tc_error_set(err, "%s", sc->problem);
		return -1;
	}
	if ((*states = record_states(s, sc, records)) == NULL ||
	    *records == NULL)
		return 0;
	n = (*records)->u.arr.len;
	for (i = 0; i < n; i++) {
		enum rec_state st = (*states)[i];
		const char *id;

		/* Only the last record may be a seal the session does not
		 * show (an interrupted one). */
		if (st != REC_MISMATCH && (st != REC_PENDING || i + 1 == n))
			continue;
		id = tc_json_get_string(first_manifest(
		    (*records)->u.arr.items[i]), "step_id");
		if (st == REC_MISMATCH)
			tc_error_set(err, "artifact manifest does not belong to "
			    "the sealed result: %s (sidecar %s)", id, sc->path);
		else
			tc_error_set(err, "sidecar binds a seal of %s that the "
			    "session does not show: %s", id != NULL ? id : "?",
			    sc->path);
		return -1;
	}
	return 0;
}

int
tc_sidecar_check(const tc_session *s, tc_error *err)
{
	const unsigned char *states;
	const tc_json *records;

	return check(s, &states, &records, err);
}

int
tc_sidecar_checked_manifest(const tc_session *s, const char *step_id,
    const tc_json **out, tc_error *err)
{
	const unsigned char *states;
	const tc_json *records;

	const struct rec_memo *m;
	size_t i;

	*out = NULL;
	if (check(s, &states, &records, err) != 0)
		return -1;
	if (states == NULL)
		return 0;
	/* check() left the memo describing the session as it reads now:
	 * each step's manifest is looked for in the records once */
	m = tc_session_sidecar(s)->memo;
	for (i = 0; m != NULL && m->states == states && i < m->nsteps; i++) {
		if (m->ids[i] == NULL || strcmp(m->ids[i], step_id) != 0)
			continue;
		if (!m->manifest_done[i]) {
			m->manifests[i] = manifest_in(states, records, step_id);
			m->manifest_done[i] = true;
		}
		*out = m->manifests[i];
		return 0;
	}
	*out = manifest_in(states, records, step_id);
	return 0;
}

/* ---- writing --------------------------------------------------------------- */

/*
 * The sidecar to append to: *out NULL (and 0) without a state directory.
 * None yet, or another session's left at this path: a new chain.  A
 * broken chain is evidence and is never extended nor replaced.
 */
static int
writable(tc_session *s, tc_sidecar **out, tc_error *err)
{
	tc_sidecar *sc = (tc_sidecar *)tc_session_sidecar(s);

	*out = NULL;
	if (sc->path == NULL)
		return 0;
	/* the records are about to change: their states are worked out anew */
	memo_free(sc->memo);
	sc->memo = NULL;
	if (!sc->foreign && sc->problem != NULL) {
		tc_error_set(err, "%s (move it aside to start a new one)",
		    sc->problem);
		return -1;
	}
	if (sc->doc == NULL || sc->foreign) {
		tc_json_free(sc->doc);
		sc->doc = tc_json_new_object();
		tc_json_object_set_string(sc->doc, "schema_version",
		    TC_SIDECAR_SCHEMA);
		tc_json_object_set(sc->doc, "records", tc_json_new_array());
		sc->foreign = false;
		free(sc->problem);
		sc->problem = NULL;
	}
	*out = sc;
	return 0;
}

static int
sidecar_write(tc_sidecar *sc, tc_error *err)
{
	tc_error why = TC_ERROR_INIT;

	if (tc_write_json(sc->path, sc->doc, TC_WRITE_MKDIRS |
	    TC_WRITE_PRIVATE, &why) == 0)
		return 0;
	tc_error_set(err, "cannot write the session's sidecar (set "
	    "TUNECTL_STATE_DIR to a writable directory): %s",
	    tc_error_msg(&why));
	tc_error_clear(&why);
	return -1;
}

/* The records of a sidecar being written (writable() made them). */
static tc_json *
records_w(tc_sidecar *sc)
{
	tc_json *records = records_of(sc);

	if (records == NULL) {
		records = tc_json_new_array();
		tc_json_object_set(sc->doc, "records", records);
	}
	return records;
}

/* Append a new record of kind to the chain (in memory). */
static tc_json *
append(tc_sidecar *sc, const tc_session *s, const char *kind)
{
	tc_json *records = records_w(sc);
	tc_json *r = tc_json_new_object();
	char prev[65], now[TC_TIMESTAMP_LEN + 1];

	tc_now_iso(now);
	tc_json_object_set_int(r, "seq", (int64_t)records->u.arr.len);
	if (records->u.arr.len == 0 || tc_json_digest(records->u.arr.items[
	    records->u.arr.len - 1], prev, NULL) != 0)
		tc_json_object_set(r, "prev_sha256", tc_json_new_null());
	else
		tc_json_object_set_string(r, "prev_sha256", prev);
	tc_json_object_set_string(r, "kind", kind);
	tc_json_object_set(r, "session_id",
	    tc_json_clone(tc_json_get(s->doc, "session_id")));
	tc_json_object_set(r, "created_at",
	    tc_json_clone(tc_json_get(s->doc, "created_at")));
	tc_json_object_set(r, "session_sha256", tc_json_new_null());
	tc_json_object_set_string(r, "recorded_at", now);
	tc_json_array_push(records, r);
	return r;
}

/* Drop a trailing record the session does not show (an interrupted seal). */
static tc_json *
drop_intent(tc_sidecar *sc, const tc_session *s)
{
	tc_json *records = records_w(sc), *last;

	if (records->u.arr.len == 0)
		return NULL;
	last = records->u.arr.items[records->u.arr.len - 1];
	if (!record_pending(s, last))
		return NULL;
	records->u.arr.len--;
	return last;
}

int
tc_sidecar_begin_seal(tc_session *s, const tc_json *manifest, bool adopt,
    tc_error *err)
{
	tc_sidecar *sc;
	tc_json *old, *r, *ms;
	int rc = 0;

	if (writable(s, &sc, err) != 0)
		return -1;
	if (sc == NULL)
		return 0;
	old = drop_intent(sc, s);
	/* Completing an interrupted seal: its artifacts must still be
	 * what that seal described. */
	if (adopt && old != NULL && !tc_json_equal(tc_json_get(
	    first_manifest(old), "artifacts"), tc_json_get(manifest,
	    "artifacts"))) {
		tc_session__refuse_adoption(tc_json_get_string(manifest,
		    "step_id"), first_manifest(old), manifest, err);
		rc = -1;
	}
	tc_json_free(old);
	if (rc != 0)
		return -1;
	r = append(sc, s, "seal");
	ms = tc_json_new_array();
	tc_json_array_push(ms, tc_json_clone(manifest));
	tc_json_object_set(r, "manifests", ms);
	return sidecar_write(sc, err);
}

void
tc_sidecar_add_manifest(tc_session *s, const tc_json *manifest)
{
	tc_sidecar *sc = s->sidecar;
	tc_json *records, *ms;

	if (sc == NULL || sc->doc == NULL || (records = records_of(sc)) == NULL ||
	    records->u.arr.len == 0)
		return;
	memo_free(sc->memo);
	sc->memo = NULL;
	ms = tc_json_get(records->u.arr.items[records->u.arr.len - 1],
	    "manifests");
	if (tc_json_is(ms, TC_JSON_ARRAY))
		tc_json_array_push(ms, tc_json_clone(manifest));
}

int
tc_sidecar_commit(tc_session *s, const char *session_sha256, tc_error *err)
{
	tc_sidecar *sc = s->sidecar;
	tc_json *records;

	if (sc == NULL || sc->path == NULL || sc->doc == NULL ||
	    (records = records_of(sc)) == NULL || records->u.arr.len == 0)
		return 0;
	tc_json_object_set_string(records->u.arr.items[records->u.arr.len - 1],
	    "session_sha256", session_sha256);
	return sidecar_write(sc, err);
}

int
tc_sidecar_start(tc_session *s, const char *session_sha256, tc_error *err)
{
	tc_sidecar *sc;

	tc_sidecar_free(s->sidecar);
	s->sidecar = tc_xcalloc(1, sizeof(*s->sidecar));
	if ((s->sidecar->path = tc_sidecar_path(s->path)) == NULL)
		return 0;
	if (writable(s, &sc, err) != 0)
		return -1;
	append(sc, s, "init");
	return tc_sidecar_commit(s, session_sha256, err);
}

int
tc_sidecar_start_doc(const char *session_path, const tc_json *doc,
    tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_session *s;
	size_t len;
	char *text = tc_json_pretty(doc, &len, err);
	int rc;

	if (text == NULL)
		return -1;
	tc_sha256_hex(text, len, hex);
	free(text);
	s = tc_session_wrap(tc_json_clone(doc), session_path);
	rc = tc_sidecar_start(s, hex, err);
	tc_session_free(s);
	return rc;
}

int
tc_sidecar_record_quarantine(tc_session *s, const tc_json *files,
    tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_sidecar *sc;
	tc_json *r;

	if (writable(s, &sc, err) != 0)
		return -1;
	if (sc == NULL)
		return 0;
	r = append(sc, s, "quarantine");
	tc_json_object_set(r, "files", tc_json_clone(files));
	/* the session file as it is: a quarantine does not rewrite it */
	if (tc_sha256_file(s->path, hex, NULL, err) != 0)
		return -1;
	tc_json_object_set_string(r, "session_sha256", hex);
	return sidecar_write(sc, err);
}

/* ---- what verify and status say about it ---------------------------------- */

char *
tc_unbound_note(const tc_session *s)
{
	tc_json *ids;
	char *note;

	if (tc_session_policy(s) == TC_POLICY_STRICT)
		return NULL;
	ids = tc_session_unbound_steps(s);
	note = tc_unbound_note_of(s, ids);
	tc_json_free(ids);
	return note;
}

char *
tc_unbound_note_of(const tc_session *s, const tc_json *ids)
{
	const tc_sidecar *sc;
	tc_buf msg = TC_BUF_INIT;
	size_t i;

	if (tc_session_policy(s) == TC_POLICY_STRICT || ids->u.arr.len == 0)
		return NULL;
	sc = tc_session_sidecar(s);
	tc_buf_puts(&msg, "artifacts unbound: ");
	for (i = 0; i < ids->u.arr.len; i++) {
		if (i > 0)
			tc_buf_puts(&msg, ", ");
		tc_buf_puts(&msg, tc_json_string(ids->u.arr.items[i]));
	}
	if (sc->path == NULL)
		tc_buf_puts(&msg, " (no state directory for a sidecar: set "
		    "TUNECTL_STATE_DIR)");
	else if (!tc_sidecar_present(sc))
		tc_buf_printf(&msg, " (no sidecar at %s)", sc->path);
	else
		tc_buf_printf(&msg, " (sealed without tunectl's binding; "
		    "sidecar %s)", sc->path);
	tc_buf_puts(&msg, "; their results and reports were checked as "
	    "the reference checks them");
	return tc_buf_detach(&msg, NULL);
}
