# Sourced by the deploy scripts: the pinned CDK command-line tools from package.json, installed on first use.

parley_require_cdk_cli() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "error: the CDK command line needs Node.js 20 or newer with npm on PATH; install them (https://nodejs.org)." >&2
    exit 1
  fi
  if [ ! -x node_modules/.bin/cdk ] || [ ! -x node_modules/.bin/cdklocal ]; then
    echo "installing the pinned CDK command line (package.json) ..." >&2
    npm ci --no-audit --no-fund >&2 || { echo "error: npm ci failed; is the npm registry reachable?" >&2; exit 1; }
  fi
}

# Splits "--profile P --region R --stack-name N" (or --x=value) and the rest: sets PARLEY_CDK_ENV (for every
# cdk command, bootstrap too), exports the region for them, and leaves the rest in PARLEY_CDK_REST (an array).
parley_cdk_options() {
  PARLEY_CDK_ENV=()
  PARLEY_CDK_REST=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --profile) [ $# -ge 2 ] || { echo "error: --profile needs a profile name" >&2; exit 2; }
                 PARLEY_CDK_ENV+=(--profile "$2"); shift 2 ;;
      --profile=*) PARLEY_CDK_ENV+=(--profile "${1#--profile=}"); shift ;;
      --region)  [ $# -ge 2 ] || { echo "error: --region needs a region, e.g. eu-west-1" >&2; exit 2; }
                 export AWS_REGION="$2" AWS_DEFAULT_REGION="$2"; shift 2 ;;
      --region=*) export AWS_REGION="${1#--region=}" AWS_DEFAULT_REGION="${1#--region=}"; shift ;;
      --stack-name) [ $# -ge 2 ] || { echo "error: --stack-name needs a name" >&2; exit 2; }
                 PARLEY_CDK_REST+=(-c "parley:stackName=$2"); shift 2 ;;
      --stack-name=*) PARLEY_CDK_REST+=(-c "parley:stackName=${1#--stack-name=}"); shift ;;
      *) PARLEY_CDK_REST+=("$1"); shift ;;
    esac
  done
}
