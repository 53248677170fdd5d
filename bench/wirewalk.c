/*
 * wirewalk: the floor for reading an XSpace. Maps the file and visits every
 * field of every XPlane, XLine, XEvent and XStat with util/pbwire, building
 * nothing. bench/run.sh compares `tracectl summarize` against it.
 *
 *   wirewalk FILE.xplane.pb
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/pbwire.h"

struct counts {
	uint64_t fields, events, stats;
	uint64_t sum; /* keeps the walk from being optimised away */
};

static int walk(const uint8_t *base, const uint8_t *p, size_t n, int level,
		struct counts *c) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, base, p, n);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		c->fields++;
		if (f.wt != TC_PB_LEN) {
			c->sum += f.u;
			continue;
		}
		/* XSpace.planes(1) -> XPlane.lines(3) -> XLine.events(4) ->
		 * XEvent.stats(4); metadata maps are walked one level down. */
		int sub = (level == 0 && f.num == 1) || (level == 1 && f.num == 3) ||
			(level == 2 && f.num == 4) || (level == 3 && f.num == 4);
		if (level == 2 && f.num == 4) {
			c->events++;
		}
		if (level == 3 && f.num == 4) {
			c->stats++;
		}
		if (sub && walk(base, f.data, f.len, level + 1, c) < 0) {
			return -1;
		}
		if (level == 1 && (f.num == 4 || f.num == 5) &&
				walk(base, f.data, f.len, 9, c) < 0) {
			return -1;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "wirewalk: %s at byte %" PRId64 "\n", pb.why, tc_pb_offset(&pb));
	}
	return rc;
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: wirewalk FILE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	size_t n = (size_t)st.st_size;
	const uint8_t *p = mmap(NULL, n ? n : 1, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise((void *)p, n, MADV_SEQUENTIAL);
	struct counts c = { 0 };
	int rc = walk(p, p, n, 0, &c);
	printf("%" PRIu64 " fields, %" PRIu64 " events, %" PRIu64 " stats (checksum %" PRIu64 ")\n",
		c.fields, c.events, c.stats, c.sum);
	munmap((void *)p, n);
	close(fd);
	return rc < 0;
}
