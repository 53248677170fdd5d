#include "ingest/ingest.h"

/* Placeholder until the xplane reader lands. */

static int sniff(const uint8_t *head, size_t len) {
	(void)head;
	(void)len;
	return 0;
}

static bool read_xplane(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	return tc_error_set(err, TC_EXIT_INPUT, "XPlane input is not supported yet");
}

const struct tc_reader tc_reader_xplane = {
	.name = "xplane",
	.description = "XPlane",
	.sniff = sniff,
	.read = read_xplane,
};
