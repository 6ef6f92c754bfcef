"""The classic 8/10/13-player rules (seed 002_4048099b330b552e.txt)."""
