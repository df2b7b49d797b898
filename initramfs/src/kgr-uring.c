// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-uring: io_uring requests in flight and an idle SQPOLL thread, for
 * the test that io_uring's own threads do not hold a kGraft transition
 * and that their requests complete with their data.
 *
 *   kgr-uring
 *
 * Sets up a ring and queues two reads of 4 bytes with IOSQE_ASYNC, so
 * that io-wq workers (iou-wrk-*) run them and sleep in them: one from an
 * empty pipe, one from an AF_UNIX stream socket with nothing in it. Sets
 * up a second ring with IORING_SETUP_SQPOLL, whose thread (iou-sqp-*)
 * goes idle. Prints "pid=P", then "ready" once both reads are queued.
 * Then it reads a byte from stdin (the test's go), writes "abcd" into
 * the pipe and "efgh" into the socket, waits for both completions and
 * prints "cqe=DATA res=R data=D" for each (DATA 1: the pipe, 2: the
 * socket); then submits a NOP through the SQPOLL ring and prints
 * "sqpoll res=R". Exit status 0 when all of that worked, 3 when the
 * kernel has no io_uring, 1 on any other error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *sq_flags;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_setup(struct ring *r, unsigned int flags)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.sq_thread_idle = 100;		/* ms before the SQPOLL thread sleeps */
	r->fd = syscall(__NR_io_uring_setup, 8, &p);
	if (r->fd < 0)
		return -1;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->sq_flags = (unsigned int *)(sq + p.sq_off.flags);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* the next free SQE, cleared; ring_push() makes it visible */
static struct io_uring_sqe *ring_sqe(struct ring *r)
{
	unsigned int i = *r->sq_tail & *r->sq_mask;

	memset(&r->sqes[i], 0, sizeof(r->sqes[i]));
	r->sq_array[i] = i;
	return &r->sqes[i];
}

static void ring_push(struct ring *r)
{
	__atomic_store_n(r->sq_tail, *r->sq_tail + 1, __ATOMIC_RELEASE);
}

static int ring_enter(struct ring *r, unsigned int submit, unsigned int wait,
		      unsigned int flags)
{
	return syscall(__NR_io_uring_enter, r->fd, submit, wait, flags, NULL, 0);
}

/* the next completion, waiting for it */
static int ring_cqe(struct ring *r, struct io_uring_cqe *out)
{
	unsigned int head;

	for (;;) {
		head = *r->cq_head;
		if (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
			break;
		if (ring_enter(r, 0, 1, IORING_ENTER_GETEVENTS) < 0 && errno != EINTR)
			return -1;
	}
	*out = r->cqes[head & *r->cq_mask];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

static void queue_read(struct ring *r, int fd, char *buf, __u64 data)
{
	struct io_uring_sqe *sqe = ring_sqe(r);

	sqe->opcode = IORING_OP_READ;
	sqe->flags = IOSQE_ASYNC;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = 4;
	sqe->user_data = data;
	ring_push(r);
}

int main(void)
{
	static char bufs[3][8];
	struct io_uring_cqe cqe;
	struct ring r, sqp;
	int pipefd[2], sv[2], i;
	char c;

	if (pipe(pipefd) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("pipe/socketpair");
		return 1;
	}
	if (ring_setup(&r, 0)) {
		perror("io_uring_setup");
		return errno == ENOSYS ? 3 : 1;
	}
	if (ring_setup(&sqp, IORING_SETUP_SQPOLL)) {
		perror("io_uring_setup(SQPOLL)");
		return 1;
	}
	printf("pid=%d\n", getpid());
	queue_read(&r, pipefd[0], bufs[1], 1);
	queue_read(&r, sv[0], bufs[2], 2);
	if (ring_enter(&r, 2, 0, 0) != 2) {
		perror("io_uring_enter");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);

	if (read(0, &c, 1) != 1) {
		perror("read stdin");
		return 1;
	}
	if (write(pipefd[1], "abcd", 4) != 4 || write(sv[1], "efgh", 4) != 4) {
		perror("write");
		return 1;
	}
	for (i = 0; i < 2; i++) {
		if (ring_cqe(&r, &cqe)) {
			perror("io_uring_enter(GETEVENTS)");
			return 1;
		}
		if (cqe.user_data < 1 || cqe.user_data > 2)
			return 1;
		printf("cqe=%llu res=%d data=%.4s\n", (unsigned long long)cqe.user_data,
		       cqe.res, cqe.res == 4 ? bufs[cqe.user_data] : "-");
	}

	/* the SQPOLL thread, asleep by now, takes a NOP */
	ring_sqe(&sqp)->opcode = IORING_OP_NOP;
	ring_push(&sqp);
	if (__atomic_load_n(sqp.sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_NEED_WAKEUP)
		ring_enter(&sqp, 0, 0, IORING_ENTER_SQ_WAKEUP);
	if (ring_cqe(&sqp, &cqe)) {
		perror("io_uring_enter(SQPOLL)");
		return 1;
	}
	printf("sqpoll res=%d\n", cqe.res);
	fflush(stdout);
	return 0;
}
