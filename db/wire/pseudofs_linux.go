package wire

import "syscall"

// pseudoFSes are the file systems whose files' sizes say nothing of what
// they read, by their statfs magic numbers: the kernel's, and FUSE, whose
// sizes and contents a user-space server makes up (one said 100 bytes
// and read without end; an sshfs or s3fs mount is FUSE too).
var pseudoFSes = map[int64]string{
	0x9fa0:     "procfs",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroupfs",
	0x63677270: "cgroup2fs",
	0x62656570: "configfs",
	0xcafe4a11: "bpffs",
	0xde5e81e4: "efivarfs",
	0x6165676c: "pstorefs",
	0x65735546: "FUSE",
}

// pseudoFS names the file system of pseudoFSes path is on ("" for any
// other).
func pseudoFS(path string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return ""
	}
	return pseudoFSes[int64(st.Type)]
}
