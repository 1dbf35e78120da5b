//go:build windows

package cloudauth

import (
	"errors"
	"syscall"
)

// errorSharingViolation is Windows' ERROR_SHARING_VIOLATION: the file is
// open elsewhere without sharing.
const errorSharingViolation syscall.Errno = 32

// tryLock opens the file at path (made when missing) for exclusive access,
// sharing it with nobody; busy reports that another process has it open.
// The system closes it when the process dies.
func tryLock(path string) (unlock func(), busy bool, err error) {
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, false, err
	}
	h, err := syscall.CreateFile(name, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil,
		syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		if errors.Is(err, errorSharingViolation) {
			return nil, true, nil
		}
		return nil, false, err
	}
	return func() { _ = syscall.CloseHandle(h) }, false, nil
}
