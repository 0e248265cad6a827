package sycldev

// nameExtracted records that the temporary file p holds an image
// extracted from the user's object name, so that an error naming p names
// the object instead (unspill rewrites every recorded temporary in the
// run's error): the temporary is deleted when the run ends. An object
// that was itself a spilled copy of a pipe is named as the user gave it.
func (d *driver) nameExtracted(p, name string) {
	if d.spilled == nil {
		d.spilled = map[string]string{}
	}
	if given, ok := d.spilled[name]; ok {
		name = given
	}
	d.spilled[p] = name
}
