package cache

// Who may have written the cache directory (docs/cache.md, "Trust model",
// issue 23). Without a secret the entries' MAC key is public, so whoever can
// write the directory can forge entries: device images that the program
// loads, i.e. code execution. Like ssh (safe_path) and gpg (unsafe
// permissions on homedir), a directory that another user owns or can write
// is not used.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// ErrUnsafe wraps the reason a cache directory or a secret file is refused.
var ErrUnsafe = errors.New("unsafe permissions")

// UnsafeError names the path that failed a trust check and why.
type UnsafeError struct {
	Path string
	Why  string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%s: %s", e.Path, e.Why)
}

func (e *UnsafeError) Unwrap() error { return ErrUnsafe }

// sharedGroup is a resolved Options.SharedGroup.
type sharedGroup struct {
	name string
	gid  uint32
}

func lookupGroup(g string) (*sharedGroup, error) {
	if g == "" {
		return nil, nil
	}
	if gr, err := user.LookupGroup(g); err == nil {
		id, err := strconv.ParseUint(gr.Gid, 10, 32)
		if err != nil {
			return nil, err
		}
		return &sharedGroup{name: g, gid: uint32(id)}, nil
	}
	id, err := strconv.ParseUint(g, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("cache: shared group %q: no such group", g)
	}
	return &sharedGroup{name: g, gid: uint32(id)}, nil
}

// dirPerm is the mode of directories the cache creates.
func (c *Cache) dirPerm() os.FileMode {
	if c.group != nil {
		return 0o770 | os.ModeSetgid
	}
	return 0o700
}

// mkdirAll creates dir (and missing parents under the cache root) with the
// cache's directory mode, whatever the umask.
func (c *Cache) mkdirAll(dir string) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir && len(parent) >= len(c.opt.Dir) {
		if err := c.mkdirAll(parent); err != nil {
			return err
		}
	}
	err := os.Mkdir(dir, 0o700)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if c.group != nil {
		if err := os.Lchown(dir, -1, int(c.group.gid)); err != nil {
			return err
		}
	}
	return os.Chmod(dir, c.dirPerm())
}

// checkPath applies ssh's safe_path rule to every directory from the root
// down to the parent of dir: each must be owned by root or by us, and not
// writable by group or others, unless it has the sticky bit and is owned by
// root or us (as /tmp is).
func checkPath(dir string) error {
	uid := uint32(os.Geteuid())
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		owner, _, ok := ownerOf(st)
		if !ok {
			return nil // no owners to check (not Unix)
		}
		if owner != 0 && owner != uid {
			return &UnsafeError{p, fmt.Sprintf("owned by uid %d, not by uid %d or root", owner, uid)}
		}
		if st.Mode().Perm()&0o022 != 0 && st.Mode()&os.ModeSticky == 0 {
			return &UnsafeError{p, fmt.Sprintf("writable by %s (mode %04o) without the sticky bit", writers(st.Mode()), st.Mode().Perm())}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func writers(m os.FileMode) string {
	switch {
	case m&0o022 == 0o022:
		return "group and others"
	case m&0o002 != 0:
		return "others"
	default:
		return "group"
	}
}

// checkDir checks one directory of the cache itself (the root, v1 and its
// sub-directories). Private: owned by us, not writable by group or others.
// Shared: group-owned by the group, setgid, group-writable, no access for
// others, owned by us, root or a member of the group.
func (c *Cache) checkDir(p string) error {
	st, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &UnsafeError{p, "not a directory"}
	}
	owner, group, ok := ownerOf(st)
	if !ok {
		return nil
	}
	uid := uint32(os.Geteuid())
	mode := st.Mode()
	if c.group == nil {
		if owner != uid {
			return &UnsafeError{p, fmt.Sprintf("owned by uid %d, not by uid %d (a shared cache needs OFFLOAD_KIT_CACHE_SHARED_GROUP)", owner, uid)}
		}
		if mode.Perm()&0o022 != 0 {
			return &UnsafeError{p, fmt.Sprintf("writable by %s (mode %04o)", writers(mode), mode.Perm())}
		}
		return nil
	}
	g := c.group
	switch {
	case group != g.gid:
		return &UnsafeError{p, fmt.Sprintf("group-owned by gid %d, not by the shared group %s (gid %d)", group, g.name, g.gid)}
	case mode&os.ModeSetgid == 0:
		return &UnsafeError{p, "not setgid (a shared cache directory is mode 2770)"}
	case mode.Perm()&0o007 != 0:
		return &UnsafeError{p, fmt.Sprintf("accessible by others (mode %04o; a shared cache directory is mode 2770)", mode.Perm())}
	case owner != 0 && owner != uid && !memberOf(owner, g.gid):
		return &UnsafeError{p, fmt.Sprintf("owned by uid %d, who is not in the shared group %s", owner, g.name)}
	}
	return nil
}

func memberOf(uid, gid uint32) bool {
	u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10))
	if err != nil {
		return false
	}
	ids, err := u.GroupIds()
	if err != nil {
		return false
	}
	for _, id := range ids {
		if id == strconv.FormatUint(uint64(gid), 10) {
			return true
		}
	}
	return false
}

// prepareDir creates the cache directory if needed and checks it, the
// directories leading to it and the directories of the store. Symbolic
// links are resolved first, so what is checked is what is used.
func (c *Cache) prepareDir() error {
	dir, err := filepath.Abs(c.opt.Dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	} else if errors.Is(err, fs.ErrNotExist) {
		parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
		if err != nil {
			return err
		}
		dir = filepath.Join(parent, filepath.Base(dir))
	} else {
		return err
	}
	// The parents must be safe before anything is created there.
	if err := checkPath(dir); err != nil {
		return err
	}
	c.opt.Dir = dir
	c.root = filepath.Join(dir, layoutVersion)
	if err := c.mkdirAll(dir); err != nil {
		return err
	}
	if err := c.checkDir(dir); err != nil {
		return err
	}
	for _, d := range []string{"", acDir, casDir, tmpDir, statDir, memoDir} {
		p := filepath.Join(c.root, d)
		if err := c.mkdirAll(p); err != nil {
			return err
		}
		if err := c.checkDir(p); err != nil {
			return err
		}
	}
	return nil
}

// CheckSecretFile checks a secret file as ssh checks private keys: a
// regular file owned by us, neither readable nor writable by others, and
// not writable by its group (group-readable is allowed, for a shared cache).
func CheckSecretFile(path string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return &UnsafeError{path, "not a regular file"}
	}
	owner, _, ok := ownerOf(st)
	if !ok {
		return nil
	}
	if uid := uint32(os.Geteuid()); owner != uid {
		return &UnsafeError{path, fmt.Sprintf("owned by uid %d, not by uid %d", owner, uid)}
	}
	if m := st.Mode().Perm(); m&0o027 != 0 {
		return &UnsafeError{path, fmt.Sprintf("readable or writable by others, or writable by its group (mode %04o; want 0600 or 0640)", m)}
	}
	return nil
}
