// the browser page's script (filled in below)
