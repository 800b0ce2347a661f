#include <linux/module.h>
static int __init d_init(void) { return 0; }
static void __exit d_exit(void) { }
module_init(d_init);
module_exit(d_exit);
MODULE_LICENSE("GPL");
