/*
 * TensorFlow 1.x timelines (tf.python.client.timeline's Chrome trace): one
 * process per StepStats device, named "<device> Compute" and
 * "<device> Tensors". The GPU's stream rows (/device:GPU:0/stream:13,
 * /device:GPU:0/memcpy) are one device's tracks; /device:GPU:0/stream:all
 * repeats every stream event, so it is kept as a derived track, never
 * counted; /job:…/device:GPU:0 is the executor scheduling the GPU's ops on
 * the host (issue 48, class 5; docs/analysis.md).
 */
#include "ingest/json/json_private.h"

/* "/device:GPU:0/stream:13 Compute" → TF1_STREAM, *dev "/device:GPU:0",
 * *track "stream:13"; TF1_NONE when the name is not a timeline row. */
static enum tf1_row parse(const char *n, size_t *dev_len, const char **track) {
	size_t len = strlen(n);
	const char *sfx = " Compute";
	size_t sl = strlen(sfx);
	if (len <= sl || strcmp(n + len - sl, sfx) != 0) {
		return TF1_NONE;
	}
	len -= sl;
	const char *d = strstr(n, "/device:");
	if (!d || (size_t)(d - n) + 8 > len) {
		return TF1_NONE;
	}
	const char *slash = memchr(d + 8, '/', len - (size_t)(d + 8 - n));
	if (d != n) {
		/* "/job:localhost/replica:0/task:0/device:GPU:0": the executor. */
		return tc_json_starts_with(n, "/job:") && !slash ? TF1_EXEC : TF1_NONE;
	}
	if (!slash) {
		return TF1_NONE; /* "/device:GPU:0 Compute": not a stream row */
	}
	*dev_len = (size_t)(slash - n);
	*track = slash + 1;
	size_t tl = len - *dev_len - 1;
	if (tl == 10 && strncmp(*track, "stream:all", 10) == 0) {
		return TF1_ALL;
	}
	if (tl == 6 && strncmp(*track, "memcpy", 6) == 0) {
		return TF1_STREAM;
	}
	if (tl > 7 && strncmp(*track, "stream:", 7) == 0) {
		return TF1_STREAM;
	}
	return TF1_NONE;
}

void tc_json_tf1_name(struct reader *r, struct pid_info *p) {
	p->tf1 = TF1_NONE;
	p->tf1_dev = p->tf1_track = 0;
	if (!p->name) {
		return;
	}
	const char *n = tc_model_str(r->m, p->name);
	size_t dev_len = 0;
	const char *track = NULL;
	enum tf1_row k = parse(n, &dev_len, &track);
	if (k == TF1_NONE) {
		return;
	}
	p->tf1 = (uint8_t)k;
	r->n_tf1++;
	if (k == TF1_EXEC) {
		r->tf1_exec_gpu |= strstr(n, "/device:GPU:") != NULL;
		return;
	}
	r->tf1_streams++;
	p->tf1_dev = tc_model_intern_n(r->m, n, dev_len);
	p->tf1_track = tc_model_intern_n(r->m, track, strlen(track) - strlen(" Compute"));
}

uint32_t tc_json_tf1_device(const struct reader *r, const struct pid_info *p) {
	if (p->tf1 != TF1_STREAM && p->tf1 != TF1_ALL) {
		return TC_NONE;
	}
	for (size_t i = 0; i < r->n_pids; i++) {
		const struct pid_info *q = &r->pids[i];
		if (q != p && q->tf1_dev == p->tf1_dev && q->device != TC_NONE) {
			return q->device;
		}
	}
	return TC_NONE;
}

void tc_json_tf1_thread(const struct reader *r, const struct pid_info *p, struct thr_info *t) {
	(void)r;
	if (p->tf1 != TF1_STREAM && p->tf1 != TF1_ALL) {
		return;
	}
	if (!t->name) {
		t->name = p->tf1_track;
	}
	if (t->kind_hint < 0 && t->flavor == FL_PLAIN) {
		t->kind_hint = (int8_t)(p->tf1 == TF1_ALL ? TC_TRACK_DERIVED : TC_TRACK_STREAM);
	}
}

void tc_json_tf1_finish(struct reader *r) {
	if (r->n_tf1 && r->tf1_exec_gpu && !r->tf1_streams) {
		tc_model_warn_inputs(r->m, 1, "json: TensorFlow timeline without GPU stream rows "
			"(traced without GPU tracing): the ops placed on the GPU are the host "
			"executor's, so the trace holds no device timeline");
	}
}
