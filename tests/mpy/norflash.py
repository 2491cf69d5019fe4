"""A simulated NOR flash for the MicroPython unix port, with power cuts.

NorFlash speaks MicroPython's extended block-device protocol, the one
vfs.VfsLfs2 drives: readblocks(block, buf, offset), writeblocks(block, buf,
offset) and ioctl(op, arg) with op 6 = erase one block. It behaves like the
Pico's QSPI NOR flash:

- erase sets a whole block to 0xFF;
- program can only clear bits (new = old AND data), never set them;
- the power can be lost at the k-th program or erase (counted from 0 since
  arm() was called), either "clean" (the operation never happened) or
  "half" (the first half of its bytes were done: a torn page or a half
  erased block);
- after the cut every operation, reads included, fails by returning -EIO
  (5) and allocates nothing: littlefs may run the cleanup of a file that was
  left open from the garbage collector, with the heap locked.

It counts program operations, bytes programmed and erases (in total and per
block) for the benchmarks. None of readblocks, writeblocks and ioctl
allocates on the heap (a test checks it under micropython.heap_lock()).
"""
import micropython
from array import array

EIO = 5
CLEAN = 0
HALF = 1


@micropython.viper
def _copy(dst, doff: int, src, soff: int, n: int):
    d = ptr8(dst)
    s = ptr8(src)
    i = 0
    while i < n:
        d[doff + i] = s[soff + i]
        i += 1


@micropython.viper
def _program(dst, doff: int, src, n: int) -> int:
    # NOR programming: bits go from 1 to 0 only. Returns how many bytes asked
    # to set a 0 bit back to 1 (littlefs never should: it erases first).
    d = ptr8(dst)
    s = ptr8(src)
    bad = 0
    i = 0
    while i < n:
        old = d[doff + i]
        new = s[i]
        if (old & new) != new:
            bad += 1
        d[doff + i] = old & new
        i += 1
    return bad


@micropython.viper
def _fill(dst, doff: int, n: int, v: int):
    d = ptr8(dst)
    i = 0
    while i < n:
        d[doff + i] = v
        i += 1


class NorFlash:
    def __init__(self, blocks=64, block_size=4096, share=None):
        if share is not None:
            # The same chips after a power cycle: same cells, same wear.
            block_size, blocks = share.block_size, share.blocks
            self.data = share.data
            self.erase_counts = share.erase_counts
        else:
            self.data = bytearray(blocks * block_size)
            _fill(self.data, 0, len(self.data), 0xFF)
            self.erase_counts = array("I", [0] * blocks)
        self.block_size = block_size
        self.blocks = blocks
        self.progs = 0          # program operations
        self.prog_bytes = 0     # bytes programmed
        self.erases = 0         # blocks erased
        self.reads = 0          # read operations
        self.violations = 0     # programs that tried to set a 0 bit to 1
        self.ops = 0            # programs + erases since arm()
        self.cut_at = -1        # ops index at which the power goes; -1: never
        self.cut_mode = CLEAN
        self.dead = False

    # -- power
    def arm(self, k, mode=CLEAN):
        """Lose power at the k-th program or erase from now (k counts from 0)."""
        self.ops = 0
        self.cut_at = k
        self.cut_mode = mode
        self.dead = False

    def power_cycle(self):
        """Power comes back: a new device over the same cells.

        This one stays dead for good, so that whatever still holds it (a
        littlefs mount, a file left open whose finaliser runs later) can
        never write to the flash again, as on a real reboot."""
        self.dead = True
        return NorFlash(share=self)

    def reset_counters(self):
        self.progs = 0
        self.prog_bytes = 0
        self.erases = 0
        self.reads = 0
        i = 0
        while i < self.blocks:
            self.erase_counts[i] = 0
            i += 1

    def snapshot(self):
        return bytes(self.data)

    def restore(self, image):
        _copy(self.data, 0, image, 0, len(self.data))

    # -- the block protocol
    def readblocks(self, block, buf, offset=0):
        if self.dead:
            return -EIO
        if offset is None:
            offset = 0
        self.reads += 1
        _copy(buf, 0, self.data, block * self.block_size + offset, len(buf))
        return 0

    def writeblocks(self, block, buf, offset=None):
        if self.dead:
            return -EIO
        n = len(buf)
        if offset is None:
            # Basic protocol: whole blocks, erased here first.
            offset = 0
            b = block
            while b < block + n // self.block_size:
                if self._erase(b):
                    return -EIO
                b += 1
        if self.ops == self.cut_at:
            self.dead = True
            if self.cut_mode == HALF:
                _program(self.data, block * self.block_size + offset, buf, n // 2)
            return -EIO
        self.ops += 1
        self.progs += 1
        self.prog_bytes += n
        self.violations += _program(self.data, block * self.block_size + offset, buf, n)
        return 0

    def _erase(self, block):
        if self.ops == self.cut_at:
            self.dead = True
            if self.cut_mode == HALF:
                _fill(self.data, block * self.block_size, self.block_size // 2, 0xFF)
            return -EIO
        self.ops += 1
        self.erases += 1
        self.erase_counts[block] += 1
        _fill(self.data, block * self.block_size, self.block_size, 0xFF)
        return 0

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.blocks
        if op == 5:  # block size
            return self.block_size
        if self.dead:
            return -EIO
        if op == 6:  # erase
            return self._erase(arg)
        return 0  # 1 init, 2 deinit, 3 sync
