# smap_lib.sh - sourced by the source_scope_map_v2 tests (after lib.sh):
# the structural case afp-struct-classify captured into a directory, with
# its analyse argv, ready for tests/fixtures/analysis/smap/mkbundle.py.

# smap_case_prep DIR: copy the case's inputs to DIR and run its prep there
# (both capture roots); sets ARGV to its "analyze fusion" arguments.
smap_case_prep() {
	local dir=$1 fix=$TUNECTL_SRC/tests/fixtures/analysis
	local srec=$fix/afp-struct-classify

	mkdir -p "$dir/out"
	cp -r "$fix/in" "$dir/in"
	chmod -R u+w "$dir"
	sed "s#\.\./mkcapture\.py#$fix/mkcapture.py#" "$srec/prep" > "$dir/prep.sh"
	(cd "$dir" && sh prep.sh > /dev/null 2>&1)
	rc=$?
	expect_rc 0 "the structural case's prep builds both capture roots"
	read -r -a ARGV < "$srec/command"
	ARGV=("${ARGV[@]:1}")
}
