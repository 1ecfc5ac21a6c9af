"""The PPA flow behind scripts/ppa.sh, one concern a module; scripts/ppa.py is its command line.

config: the paths, the liberty, the measured node. workdirs: failures, --keep and --out, a tool's
run. synth: Yosys. liberty: the library's cells. netlist: the synthesized netlist, read and
written. sta: OpenSTA's timing and power. sram: the SRAM model and its port cells. activity:
toggles and gates' duties from the RTL's traces. clocks: the clock domains. power: the device's
power. flow: a design measured whole. nodes: scaling to other nodes. energy: the energy model's
tables. The imports run one way: no cycle among them, none of scripts/ppa.py.
"""
