# Sourced by the scripts in scripts/ (not run): the argument handling every one of them shares.
# --help prints the script's usage, its header comment (the lines after `#!` up to the first that
# is not a comment), and exits 0; a bad argument is one line on stderr and exit 2, before any
# long work starts (issue 58).

# The script's header comment, without the '# '.
print_usage() {
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# One line on stderr naming the script, exit 2.
usage_error() {
  echo "$(basename "$0"): $*" >&2
  exit 2
}

# --help or -h as the first argument: the usage, exit 0.
help_if_asked() {
  case "${1:-}" in
    -h | --help) print_usage; exit 0 ;;
  esac
}

# A script that takes no arguments but --help.
no_arguments() {
  help_if_asked "$@"
  (($# == 0)) || usage_error "unknown argument '$1' (it takes none; --help for its usage)"
}
