package linkwrap

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLdVerboseSearchDirs: GNU ld's built-in search directories are read
// from the default script ld --verbose prints (with hostlink's script
// reader), not from the text around it.
func TestLdVerboseSearchDirs(t *testing.T) {
	out := "GNU ld (GNU Binutils for Debian) 2.40\n  Supported emulations:\n   elf_x86_64\nusing internal linker script:\n" +
		"==================================================\n/* Script for -z combreloc -z separate-code */\n" +
		"OUTPUT_FORMAT(\"elf64-x86-64\", \"elf64-x86-64\",\n\t      \"elf64-x86-64\")\nOUTPUT_ARCH(i386:x86-64)\nENTRY(_start)\n" +
		"SEARCH_DIR(\"=/usr/local/lib/x86_64-linux-gnu\"); SEARCH_DIR(\"=/lib/x86_64-linux-gnu\"); SEARCH_DIR(\"/usr/x86_64-linux-gnu/lib64\");\n" +
		"SECTIONS\n{\n  PROVIDE (__executable_start = SEGMENT_START(\"text-segment\", 0x400000));\n}\n" +
		"==================================================\nSEARCH_DIR(\"/not/in/the/script\")\n"
	assert.Equal(t, []string{"=/usr/local/lib/x86_64-linux-gnu", "=/lib/x86_64-linux-gnu", "/usr/x86_64-linux-gnu/lib64"}, ldVerboseSearchDirs(out))
	assert.Equal(t, []string{"/a", "/b"}, ldVerboseSearchDirs("SEARCH_DIR(\"/a\"); SEARCH_DIR(/b)"), "no rulers: the whole output")
}
