{
  "targets": [
    {
      "target_name": "strata_numa",
      "sources": ["numa.c"],
      "defines": ["_GNU_SOURCE"],
      "cflags_c": ["-std=gnu11", "-O2", "-Wall", "-Wextra"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=gnu11"] }
    }
  ]
}
