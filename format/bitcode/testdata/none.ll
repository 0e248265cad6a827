; A module with no embedded objects but some unrelated named metadata.
@data = private constant [5 x i8] c"hello", section ".rodata"
!llvm.ident = !{!0}
!0 = !{!"no embedded objects"}
