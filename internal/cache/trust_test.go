package cache

// Issue 23, scope 1: who may have written the cache directory and the
// secret file. The tests that change owners or run a second user need
// root (CI runs as root); they run the package's Open as uid 65534 through
// a re-executed test binary (TestTrustHelper) with
// syscall.SysProcAttr.Credential.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const nobody = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to change owners and run as uid 65534 (CI runs as root)")
	}
}

// openErr opens dir and returns the *UnsafeError it is refused with (nil
// if it opens).
func openErr(t *testing.T, opt Options) *UnsafeError {
	t.Helper()
	c, err := Open(opt)
	if err == nil {
		c.Close()
		return nil
	}
	var ue *UnsafeError
	require.True(t, errors.As(err, &ue), "want an *UnsafeError, got %v", err)
	assert.ErrorIs(t, err, ErrUnsafe)
	return ue
}

// worldDir returns a fresh directory that any user can reach (t.TempDir
// is 0700), under a sticky world-writable parent as /tmp is.
func worldDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	require.NoError(t, os.Chmod(base, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(base), 0o755))
	d := filepath.Join(base, "pub")
	require.NoError(t, os.Mkdir(d, 0o755))
	require.NoError(t, os.Chmod(d, 0o777|os.ModeSticky))
	return d
}

// helperExe copies the test binary where uid 65534 can run it.
func helperExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	data, err := os.ReadFile(exe)
	require.NoError(t, err)
	dir := filepath.Join(worldDir(t), "bin")
	require.NoError(t, os.Mkdir(dir, 0o755))
	p := filepath.Join(dir, "cache.test")
	require.NoError(t, os.WriteFile(p, data, 0o755))
	return p
}

// runAs runs TestTrustHelper's action as uid/gid with the given groups.
func runAs(t *testing.T, exe string, uid, gid uint32, groups []uint32, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^TestTrustHelper$", "-test.count=1", "-test.v")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "TMPDIR=/tmp"}, env...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid, Groups: groups}}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestTrustHelper acts for another user in the tests below; it does
// nothing in a normal run.
func TestTrustHelper(t *testing.T) {
	dir := os.Getenv("TRUST_DIR")
	if dir == "" {
		t.Skip("helper for the TestTrust* tests")
	}
	switch os.Getenv("TRUST_ACTION") {
	case "squat":
		// The attacker creates the victim's --cache-dir before the
		// victim, forges an entry with the public MAC key, and opens the
		// directory to everyone.
		require.NoError(t, os.Mkdir(dir, 0o700))
		c, err := Open(Options{Dir: dir})
		require.NoError(t, err)
		src := filepath.Join(t.TempDir(), "forged")
		require.NoError(t, os.WriteFile(src, []byte("FORGED IMAGE"), 0o644))
		require.NoError(t, c.Put(context.Background(), testKey(7), Entry{Files: map[string]string{"image": src, "image.map": src}}))
		require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				err = os.Chmod(p, 0o777)
			}
			return err
		}))
		fmt.Println("SQUATTED")
	case "secret":
		// As an unprivileged user: its own 0600/0640 secrets pass, others
		// fail, and root's 0600 file is not its own.
		for mode, ok := range map[os.FileMode]bool{0o600: true, 0o640: true, 0o644: false, 0o660: false, 0o606: false} {
			p := filepath.Join(dir, fmt.Sprintf("s%o", mode))
			require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("k", 32)), 0o600))
			require.NoError(t, os.Chmod(p, mode))
			st, err := os.Stat(p)
			require.NoError(t, err)
			err = CheckSecretFile(p, st)
			require.Equal(t, ok, err == nil, "mode %o: %v", mode, err)
		}
		st, err := os.Stat(os.Getenv("TRUST_ROOT_SECRET"))
		require.NoError(t, err)
		require.ErrorContains(t, CheckSecretFile("root-secret", st), "owned by uid 0, not by uid 65534")
		fmt.Println("SECRET-OK")
	case "open":
		opt := Options{Dir: dir, SharedGroup: os.Getenv("TRUST_GROUP")}
		c, err := Open(opt)
		if err != nil {
			fmt.Printf("OPEN-ERR: %v\n", err)
			return
		}
		putEntry(t, c, 8, 100)
		require.True(t, getEntry(t, c, 8, 100).OK)
		fmt.Println("OPEN-OK")
	}
}

// TestTrustPrivateDirectory: the unshared cache directory must be owned by
// the user and writable by no one else; each directory above it must be
// owned by root or the user and not writable by others unless sticky.
// Runs as the current user (root in CI) and, as root, also as uid 65534.
func TestTrustPrivateDirectory(t *testing.T) {
	base := t.TempDir()
	ok := filepath.Join(base, "ok")
	assert.Nil(t, openErr(t, Options{Dir: ok}), "a new directory under a private parent")

	old := syscall.Umask(0)
	fresh := filepath.Join(base, "umask0", "cache")
	ue := openErr(t, Options{Dir: fresh})
	syscall.Umask(old)
	assert.Nil(t, ue)
	for _, p := range []string{fresh, filepath.Join(fresh, "v1"), filepath.Join(fresh, "v1", "ac")} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "%s is created 0700 whatever the umask", p)
	}

	for i, mode := range []os.FileMode{0o777, 0o775, 0o757, 0o777 | os.ModeSticky} {
		d := filepath.Join(base, fmt.Sprintf("m%d", i))
		require.NoError(t, os.Mkdir(d, 0o700))
		require.NoError(t, os.Chmod(d, mode))
		ue := openErr(t, Options{Dir: d})
		if assert.NotNil(t, ue, "mode %o", mode) {
			assert.Equal(t, d, ue.Path)
			assert.Contains(t, ue.Why, "writable by")
		}
	}

	// A parent writable by others without the sticky bit: it could rename
	// the cache directory away and put its own in its place.
	par := filepath.Join(base, "openparent")
	require.NoError(t, os.Mkdir(par, 0o700))
	require.NoError(t, os.Chmod(par, 0o777))
	ue = openErr(t, Options{Dir: filepath.Join(par, "cache")})
	if assert.NotNil(t, ue) {
		assert.Equal(t, par, ue.Path)
		assert.Contains(t, ue.Why, "without the sticky bit")
	}
	require.NoError(t, os.Chmod(par, 0o777|os.ModeSticky))
	assert.Nil(t, openErr(t, Options{Dir: filepath.Join(par, "cache")}), "sticky and ours, as /tmp: allowed")

	// A sub-directory of the store that others can write is refused too.
	sub := filepath.Join(base, "sub")
	assert.Nil(t, openErr(t, Options{Dir: sub}))
	require.NoError(t, os.Chmod(filepath.Join(sub, "v1", "cas"), 0o777))
	ue = openErr(t, Options{Dir: sub})
	if assert.NotNil(t, ue) {
		assert.Equal(t, filepath.Join(sub, "v1", "cas"), ue.Path)
	}

	if os.Geteuid() != 0 {
		return
	}
	// As root: a directory owned by another user, and a parent owned by
	// another user, are refused.
	other := filepath.Join(base, "other")
	require.NoError(t, os.Mkdir(other, 0o700))
	require.NoError(t, os.Chown(other, nobody, nobody))
	ue = openErr(t, Options{Dir: other})
	if assert.NotNil(t, ue) {
		assert.Contains(t, ue.Why, "owned by uid 65534")
	}
	ue = openErr(t, Options{Dir: filepath.Join(other, "cache")})
	if assert.NotNil(t, ue) {
		assert.Equal(t, other, ue.Path)
	}

	// As uid 65534: its own new directory is fine; root's is not; a
	// world-writable one is not.
	exe := helperExe(t)
	pub := worldDir(t)
	out, err := runAs(t, exe, nobody, nobody, nil, "TRUST_DIR="+filepath.Join(pub, "mine"), "TRUST_ACTION=open")
	require.NoError(t, err, out)
	assert.Contains(t, out, "OPEN-OK")
	rootDir := filepath.Join(pub, "roots")
	require.NoError(t, os.Mkdir(rootDir, 0o755))
	out, err = runAs(t, exe, nobody, nobody, nil, "TRUST_DIR="+rootDir, "TRUST_ACTION=open")
	require.NoError(t, err, out)
	assert.Contains(t, out, "OPEN-ERR: cache: "+rootDir+": owned by uid 0, not by uid 65534")
	ww := filepath.Join(pub, "ww")
	require.NoError(t, os.Mkdir(ww, 0o700))
	require.NoError(t, os.Chown(ww, nobody, nobody))
	require.NoError(t, os.Chmod(ww, 0o777))
	out, err = runAs(t, exe, nobody, nobody, nil, "TRUST_DIR="+ww, "TRUST_ACTION=open")
	require.NoError(t, err, out)
	assert.Contains(t, out, "OPEN-ERR: cache: "+ww+": writable by group and others (mode 0777)")
}

// TestTrustSquattedDirectory is attack 1: uid 65534 creates the victim's
// cache directory first, world-writable, and forges an entry (it can
// compute the public MAC). The victim (root, then another unprivileged
// uid) must refuse the directory; the forged entry would otherwise be a
// valid hit.
func TestTrustSquattedDirectory(t *testing.T) {
	needRoot(t)
	exe := helperExe(t)
	pub := worldDir(t)
	dir := filepath.Join(pub, "cache")
	out, err := runAs(t, exe, nobody, nobody, nil, "TRUST_DIR="+dir, "TRUST_ACTION=squat")
	require.NoError(t, err, out)
	require.Contains(t, out, "SQUATTED")

	ue := openErr(t, Options{Dir: dir})
	require.NotNil(t, ue, "root must not use a directory uid 65534 owns")
	assert.Equal(t, dir, ue.Path)
	assert.Contains(t, ue.Error(), "owned by uid 65534")

	// Another unprivileged victim (uid 65533) refuses it too.
	out, err = runAs(t, exe, 65533, 65533, nil, "TRUST_DIR="+dir, "TRUST_ACTION=open")
	require.NoError(t, err, out)
	assert.Contains(t, out, "OPEN-ERR: cache: "+dir+": owned by uid 65534, not by uid 65533")

	// Control: the forged entry is valid (public MAC): a copy that root
	// owns privately serves it. This is what the check prevents.
	priv := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, exec.Command("cp", "-a", dir, priv).Run())
	require.NoError(t, exec.Command("chown", "-R", "0:0", priv).Run())
	require.NoError(t, exec.Command("chmod", "-R", "go-w", priv).Run())
	c := openCache(t, Options{Dir: priv})
	dst := filepath.Join(t.TempDir(), "img")
	hit, err := c.Get(context.Background(), testKey(7), map[string]string{"image": dst})
	require.NoError(t, err)
	require.True(t, hit.OK)
	got, _ := os.ReadFile(dst)
	assert.Equal(t, "FORGED IMAGE", string(got))
}

// TestTrustSharedGroup: with SharedGroup the directory may be shared by a
// group's members: group-owned by it, setgid, 2770, no access for others.
func TestTrustSharedGroup(t *testing.T) {
	needRoot(t)
	const users = 100 // Debian's "users"
	pub := worldDir(t)
	mk := func(name string, gid int, mode os.FileMode) string {
		d := filepath.Join(pub, name)
		require.NoError(t, os.Mkdir(d, 0o700))
		require.NoError(t, os.Chown(d, 0, gid))
		require.NoError(t, os.Chmod(d, mode))
		return d
	}
	good := mk("good", users, 0o770|os.ModeSetgid)
	assert.Nil(t, openErr(t, Options{Dir: good, SharedGroup: "users"}))
	assert.Nil(t, openErr(t, Options{Dir: good, SharedGroup: "100"}), "a group number")
	st, err := os.Stat(filepath.Join(good, "v1", "ac"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o770)|os.ModeSetgid|os.ModeDir, st.Mode(), "sub-directories are 2770")
	assert.Equal(t, uint32(users), st.Sys().(*syscall.Stat_t).Gid)

	// Without the option a group-writable directory is refused.
	ue := openErr(t, Options{Dir: good})
	if assert.NotNil(t, ue) {
		assert.Contains(t, ue.Why, "writable by group")
	}
	for _, c := range []struct {
		name string
		gid  int
		mode os.FileMode
		why  string
	}{
		{"nosetgid", users, 0o770, "not setgid"},
		{"world", users, 0o775 | os.ModeSetgid, "accessible by others"},
		{"worldw", users, 0o777 | os.ModeSetgid, "accessible by others"},
		{"othergroup", nobody, 0o770 | os.ModeSetgid, "not by the shared group users"},
	} {
		ue := openErr(t, Options{Dir: mk(c.name, c.gid, c.mode), SharedGroup: "users"})
		if assert.NotNil(t, ue, c.name) {
			assert.Contains(t, ue.Why, c.why, c.name)
		}
	}
	_, err = Open(Options{Dir: good, SharedGroup: "no-such-group-here"})
	assert.ErrorContains(t, err, "no such group")

	// A member of the group (uid 65534 with supplementary group 100)
	// shares the root-created directory; a non-member's process cannot
	// even open it.
	exe := helperExe(t)
	out, err := runAs(t, exe, nobody, nobody, []uint32{users}, "TRUST_DIR="+good, "TRUST_ACTION=open", "TRUST_GROUP=users")
	require.NoError(t, err, out)
	assert.Contains(t, out, "OPEN-OK")
	c := openCache(t, Options{Dir: good, SharedGroup: "users"})
	assert.True(t, getEntry(t, c, 8, 100).OK, "root reads the member's entry")
	// A directory owned by a user outside the group is refused.
	require.NoError(t, os.Chown(good, 65533, users))
	ue = openErr(t, Options{Dir: good, SharedGroup: "users"})
	if assert.NotNil(t, ue) {
		assert.Contains(t, ue.Why, "not in the shared group")
	}
}

// TestTrustSecretFile: the secret must be the user's, unreadable and
// unwritable by others, and not group-writable.
func TestTrustSecretFile(t *testing.T) {
	dir := t.TempDir()
	check := func(mode os.FileMode) error {
		p := filepath.Join(dir, fmt.Sprintf("s%o", mode))
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("k", 32)), 0o600))
		require.NoError(t, os.Chmod(p, mode))
		st, err := os.Stat(p)
		require.NoError(t, err)
		return CheckSecretFile(p, st)
	}
	assert.NoError(t, check(0o600))
	assert.NoError(t, check(0o400))
	assert.NoError(t, check(0o640), "group-readable: a shared cache's group")
	for _, m := range []os.FileMode{0o644, 0o604, 0o602, 0o620, 0o660, 0o666} {
		err := check(m)
		assert.ErrorIs(t, err, ErrUnsafe, "mode %o", m)
	}
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.ErrorContains(t, CheckSecretFile(dir, st), "not a regular file")
	if os.Geteuid() == 0 {
		p := filepath.Join(dir, "theirs")
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("k", 32)), 0o600))
		require.NoError(t, os.Chown(p, nobody, nobody))
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.ErrorContains(t, CheckSecretFile(p, st), "owned by uid 65534")

		// The same rules as uid 65534.
		pub := worldDir(t)
		rootSecret := filepath.Join(pub, "root-secret")
		require.NoError(t, os.WriteFile(rootSecret, []byte(strings.Repeat("k", 32)), 0o644))
		mine := filepath.Join(pub, "mine")
		require.NoError(t, os.Mkdir(mine, 0o700))
		require.NoError(t, os.Chown(mine, nobody, nobody))
		out, err := runAs(t, helperExe(t), nobody, nobody, nil, "TRUST_DIR="+mine, "TRUST_ACTION=secret", "TRUST_ROOT_SECRET="+rootSecret)
		require.NoError(t, err, out)
		assert.Contains(t, out, "SECRET-OK")
	}
}

// TestTrimCountsMemos: stat/ and memo/ count against MaxSize and are
// trimmed (attack 2: they grew without bound).
func TestTrimCountsMemos(t *testing.T) {
	clock := newFakeClock()
	dir := t.TempDir()
	c := openCache(t, Options{Dir: dir, MaxSize: 64 << 10, Now: clock.Now})
	big := make([]byte, 4000)
	src := t.TempDir()
	dep := writeTestFile(t, filepath.Join(src, "dep"), big)
	require.NoError(t, os.Chtimes(dep, clock.Now().Add(-time.Hour), clock.Now().Add(-time.Hour)))
	for i := range 40 { // 160 KB of memos
		c.SetMemo("test", fmt.Sprint("memo", i), []string{dep}, clock.Now().Add(time.Hour), big)
	}
	for i := range 20 {
		p := writeTestFile(t, filepath.Join(src, fmt.Sprint("f", i)), big)
		require.NoError(t, os.Chtimes(p, clock.Now().Add(-3*time.Second), clock.Now().Add(-3*time.Second)))
		_, _, err := c.FileHash(p)
		require.NoError(t, err)
	}
	_, ok := c.Memo("test", "memo39")
	require.True(t, ok, "memo39 before trim")
	before, err := c.Size(context.Background())
	require.NoError(t, err)
	require.Greater(t, before, int64(2*64<<10), "memos are counted")
	res, err := c.Trim(context.Background())
	require.NoError(t, err)
	assert.LessOrEqual(t, res.After, int64(64<<10))
	after, err := c.Size(context.Background())
	require.NoError(t, err)
	assert.LessOrEqual(t, after, int64(64<<10))
	_, ok = c.Memo("test", "memo0")
	assert.False(t, ok, "the oldest memo is evicted")
	_, ok = c.Memo("test", "memo39")
	assert.True(t, ok, "the newest memo is kept")
}

// TestTrustSymlinkResolved: a cache directory named through a symbolic
// link is checked where it really is.
func TestTrustSymlinkResolved(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	require.NoError(t, os.Mkdir(real, 0o700))
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(real, link))
	c := openCache(t, Options{Dir: link})
	putEntry(t, c, 1, 100)
	assert.DirExists(t, filepath.Join(real, "v1", "ac"))

	bad := filepath.Join(base, "open")
	require.NoError(t, os.Mkdir(bad, 0o700))
	require.NoError(t, os.Chmod(bad, 0o777))
	badLink := filepath.Join(base, "badlink")
	require.NoError(t, os.Symlink(bad, badLink))
	ue := openErr(t, Options{Dir: filepath.Join(badLink, "cache")})
	if assert.NotNil(t, ue) {
		assert.Equal(t, bad, ue.Path, "the link's target is what is checked")
	}
}
