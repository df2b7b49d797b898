# SPDX-License-Identifier: GPL-2.0
#
# Cleaning: "make clean" removes the initramfs and the logs, "make
# distclean" all of $(BUILD).

.PHONY: clean distclean

clean:
	rm -rf $(BUILD)/initramfs $(INITRAMFS) $(LOGDIR)

distclean:
	rm -rf $(BUILD)
