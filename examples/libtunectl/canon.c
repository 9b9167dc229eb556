/*
 * canon.c - a program built on the installed libtunectl: it reads a JSON
 * document from stdin and prints the library version, the document's
 * canonical form and its digest (the one tunectl seals evidence with).
 *
 *   make                  (uses pkg-config tunectl)
 *   echo '{"b": 1, "a": [true, 2.5]}' | ./canon
 */
#include <stdio.h>
#include <stdlib.h>

#include <tunectl/tunectl.h>

int
main(void)
{
	tc_error err = TC_ERROR_INIT;
	char buf[65536], hex[65], *canon;
	size_t len = fread(buf, 1, sizeof(buf), stdin);
	tc_json *doc;

	printf("libtunectl %s (%d.%d.%d)\n", TUNECTL_VERSION_STRING,
	    TUNECTL_VERSION_MAJOR, TUNECTL_VERSION_MINOR,
	    TUNECTL_VERSION_PATCH);
	if ((doc = tc_json_parse(buf, len, &err)) == NULL) {
		fprintf(stderr, "canon: %s\n", tc_error_msg(&err));
		tc_error_clear(&err);
		return 1;
	}
	canon = tc_json_canonical(doc, NULL, &err);
	if (canon == NULL || tc_json_digest(doc, hex, &err) != 0) {
		fprintf(stderr, "canon: %s\n", tc_error_msg(&err));
		tc_error_clear(&err);
		free(canon);
		tc_json_free(doc);
		return 1;
	}
	printf("%s\nsha256:%s\n", canon, hex);
	free(canon);
	tc_json_free(doc);
	return 0;
}
