package optable

import "testing"

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{
		Flag: "Flag", Joined: "Joined", Separate: "Separate", JoinedOrSeparate: "JoinedOrSeparate",
		CommaJoined: "CommaJoined", 5: "Kind(5)", -1: "Kind(-1)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}
