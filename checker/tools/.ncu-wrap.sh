#!/usr/bin/env bash
exec ncu $NCU_EXTRA "$@"
