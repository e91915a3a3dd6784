#!/bin/sh
# Never finishes: the server must kill it at its time limit.
echo hanging
sleep 86400
