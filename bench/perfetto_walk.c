/*
 * No-op wire walk of a Perfetto trace: mmap the file, visit every top-level
 * packet, every TracePacket field and every TrackEvent field with
 * util/pbwire, and count them. The floor for what a protobuf reader of the
 * same file can cost; bench/perfetto.sh prints it beside tracectl's rate.
 */

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "util/pbwire.h"

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: perfetto_walk TRACE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 3;
	}
	size_t len = (size_t)st.st_size;
	const uint8_t *base = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 3;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct tc_pb top, pk, te;
	struct tc_pb_field f = { 0 }, g = { 0 }, h = { 0 };
	uint64_t packets = 0, fields = 0, sum = 0;
	tc_pb_init(&top, base, base, len);
	int rv;
	while ((rv = tc_pb_next(&top, &f)) > 0) {
		if (f.num != 1 || f.wt != TC_PB_LEN) {
			continue;
		}
		packets++;
		tc_pb_init(&pk, base, f.data, f.len);
		while (tc_pb_next(&pk, &g) > 0) {
			fields++;
			if (g.num == 11 && g.wt == TC_PB_LEN) {
				tc_pb_init(&te, base, g.data, g.len);
				while (tc_pb_next(&te, &h) > 0) {
					fields++;
					sum += h.u;
				}
			} else {
				sum += g.u;
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rv < 0) {
		fprintf(stderr, "perfetto_walk: %s at byte %lld\n", top.why,
			(long long)tc_pb_offset(&top));
		return 3;
	}
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("packets %llu fields %llu checksum %llu\n", (unsigned long long)packets,
		(unsigned long long)fields, (unsigned long long)sum);
	printf("walk %.3f s, %.0f MB/s\n", s, (double)len / 1e6 / s);
	munmap((void *)base, len);
	close(fd);
	return 0;
}
