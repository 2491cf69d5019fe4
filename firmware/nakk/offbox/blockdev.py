"""Block devices for MicroPython's vfs, and mounting littlefs on them.

On the Pico the flash is mounted by MicroPython itself (rp2.Flash, littlefs
v2, 4096-byte blocks, progsize 256) and the journal is handed a directory on
it. The simulator has no such flash: FileBlockDev keeps the same filesystem
in an image file instead, so that killing the simulator at any moment is a
power cut, exactly as on the device.

FileBlockDev speaks the extended block protocol that vfs.VfsLfs2 uses:

    readblocks(block, buf, offset)   read len(buf) bytes at block*size+offset
    writeblocks(block, buf, offset)  program them (the block was erased);
                                     without offset, whole blocks, erased here
    ioctl(op, arg)                   1 init, 2 deinit, 3 sync, 4 block count,
                                     5 block size, 6 erase block `arg`

Every write goes straight to the image file with one write() call (files on
the unix port are unbuffered), so what littlefs has programmed is in the
file even if the process is killed the next instant. None of the three
methods allocates on the heap: littlefs may call them from a finaliser with
the heap locked.
"""

BLOCK_SIZE = 4096
PICO_BLOCKS = 352      # the Pico's 1408 KiB filesystem
PROGSIZE = 256         # what MicroPython on rp2 mounts with


class FileBlockDev:
    def __init__(self, path, blocks=PICO_BLOCKS, block_size=BLOCK_SIZE):
        self.path = path
        self.blocks = blocks
        self.block_size = block_size
        self._ff = bytearray(block_size)
        for i in range(block_size):
            self._ff[i] = 0xFF
        try:
            f = open(path, "r+b")
        except OSError:
            f = open(path, "w+b")
        self.f = f
        # An image that is new (or short) is erased flash: 0xFF up to its size.
        size = f.seek(0, 2)
        full = blocks * block_size
        if size < full:
            size -= size % block_size
            f.seek(size)
            while size < full:
                f.write(self._ff)
                size += block_size
            f.flush()

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None

    def readblocks(self, block, buf, offset=0):
        if offset is None:
            offset = 0
        f = self.f
        f.seek(block * self.block_size + offset)
        f.readinto(buf)
        return 0

    def writeblocks(self, block, buf, offset=None):
        f = self.f
        if offset is None:
            offset = 0
            n = len(buf) // self.block_size
            b = block
            while b < block + n:
                self._erase(b)
                b += 1
        f.seek(block * self.block_size + offset)
        f.write(buf)
        return 0

    def _erase(self, block):
        f = self.f
        f.seek(block * self.block_size)
        f.write(self._ff)
        return 0

    def ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        if op == 5:
            return self.block_size
        if op == 6:
            return self._erase(arg)
        if op == 3:
            self.f.flush()
        return 0


def mount(bdev, mount_point, progsize=PROGSIZE):
    """Mount littlefs v2 on bdev at mount_point, formatting it if it holds none
    (as MicroPython does with the Pico's flash at boot). Returns the VFS."""
    import vfs
    try:
        fs = vfs.VfsLfs2(bdev, progsize=progsize)
    except OSError:
        vfs.VfsLfs2.mkfs(bdev, progsize=progsize)
        fs = vfs.VfsLfs2(bdev, progsize=progsize)
    vfs.mount(fs, mount_point)
    return fs


def mount_image(path, mount_point, blocks=PICO_BLOCKS):
    """The simulator's flash: the littlefs image file at path, mounted at
    mount_point (created and formatted when missing). Returns the block
    device; close it after vfs.umount(mount_point)."""
    bdev = FileBlockDev(path, blocks)
    mount(bdev, mount_point)
    return bdev
