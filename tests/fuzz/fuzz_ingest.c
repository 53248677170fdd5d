/* One reader, forced (no sniffing), so every input reaches its parser.
 * Built once per reader with -DFUZZ_READER=tc_reader_<name>. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	tc_fuzz_ingest(&FUZZ_READER, data, size);
	return 0;
}
