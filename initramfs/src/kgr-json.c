// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-json: is standard input one JSON value (RFC 8259)?  Exit status 0
 * when it is, 1 with "kgr-json: line L: WHAT" on stderr when it is not.
 * The guest tests check "kgr ... --json" with it in both guests (the
 * busybox initramfs has neither jq nor python3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int c;		/* the next character, or EOF */
static int line = 1;
static int depth;

static void next(void)
{
	if (c == '\n')
		line++;
	c = getchar();
}

static void fail(const char *what)
{
	fprintf(stderr, "kgr-json: line %d: %s\n", line, what);
	exit(1);
}

static void blanks(void)
{
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		next();
}

static void expect(int ch, const char *what)
{
	if (c != ch)
		fail(what);
	next();
}

static void word(const char *w)
{
	for (; *w; w++)
		expect(*w, "a bad literal (true, false or null?)");
}

static void string(void)
{
	int i;

	expect('"', "a string must start with '\"'");
	while (c != '"') {
		if (c == EOF || (c >= 0 && c < 0x20))
			fail("a control character or the end of input in a string");
		if (c == '\\') {
			next();
			if (c == 'u') {
				for (i = 0; i < 4; i++) {
					next();
					if (!strchr("0123456789abcdefABCDEF", c) || c == 0)
						fail("a bad \\u escape");
				}
			} else if (c == EOF || !strchr("\"\\/bfnrt", c)) {
				fail("a bad escape in a string");
			}
		}
		next();
	}
	next();
}

static void digits(void)
{
	if (c < '0' || c > '9')
		fail("a digit expected in a number");
	while (c >= '0' && c <= '9')
		next();
}

static void number(void)
{
	if (c == '-')
		next();
	if (c == '0')
		next();
	else
		digits();
	if (c == '.') {
		next();
		digits();
	}
	if (c == 'e' || c == 'E') {
		next();
		if (c == '+' || c == '-')
			next();
		digits();
	}
}

static void value(void);

/* the members of an object or the elements of an array, up to @close */
static void members(int close, int keyed)
{
	next();
	blanks();
	if (c == close) {
		next();
		return;
	}
	for (;;) {
		if (keyed) {
			string();
			blanks();
			expect(':', "':' expected after a key");
		}
		value();
		if (c == close)
			break;
		expect(',', keyed ? "',' or '}' expected" : "',' or ']' expected");
		blanks();
	}
	next();
}

static void value(void)
{
	blanks();
	if (++depth > 64)
		fail("nested too deep");
	if (c == '{')
		members('}', 1);
	else if (c == '[')
		members(']', 0);
	else if (c == '"')
		string();
	else if (c == 't')
		word("true");
	else if (c == 'f')
		word("false");
	else if (c == 'n')
		word("null");
	else if (c == '-' || (c >= '0' && c <= '9'))
		number();
	else
		fail(c == EOF ? "no value" : "not the start of a value");
	depth--;
	blanks();
}

int main(void)
{
	next();
	value();
	if (c != EOF)
		fail("more after the value");
	return 0;
}
